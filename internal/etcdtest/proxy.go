package etcdtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP from 127.0.0.1 to a target address and can cut the
// path, like a network partition between one node and etcd while the rest
// of the cluster still reaches it.
type Proxy struct {
	target string
	ln     net.Listener

	mu    sync.Mutex // guards cut, conns and held
	cut   bool
	conns map[net.Conn]struct{} // both ends of every forwarded connection
	held  []net.Conn            // accepted while cut: never answered
}

// NewProxy listens on 127.0.0.1:0 and forwards to target; it is closed at
// the end of the test.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("etcdtest: proxy listen: %v", err)
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	tb.Cleanup(p.close)
	return p
}

// Endpoints are the proxy's client URLs.
func (p *Proxy) Endpoints() []string { return []string{"http://" + p.ln.Addr().String()} }

// Cut drops every forwarded connection and holds new ones unanswered
// until Restore: the client sees a dead network, not a refusal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore forwards again; connections held while cut are closed so that
// the client redials.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
	for _, c := range p.held {
		c.Close()
	}
	p.held = nil
}

func (p *Proxy) close() {
	p.ln.Close()
	p.Cut()
	p.Restore()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		if cut {
			p.held = append(p.held, c)
		}
		p.mu.Unlock()
		if !cut {
			go p.forward(c)
		}
	}
}

func (p *Proxy) forward(c net.Conn) {
	t, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut { // cut while dialling
		p.mu.Unlock()
		c.Close()
		t.Close()
		return
	}
	p.conns[c], p.conns[t] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) { _, _ = io.Copy(dst, src); dst.Close(); src.Close(); done <- struct{}{} }
	go pipe(t, c)
	go pipe(c, t)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, t)
	p.mu.Unlock()
}
