package sshd_test

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sshd"
	gossh "golang.org/x/crypto/ssh"
)

// freezer is a TCP proxy that can stop forwarding without closing anything:
// a network that silently went away.
type freezer struct {
	l      net.Listener
	frozen atomic.Bool
	wg     sync.WaitGroup
}

func newFreezer(tb testing.TB, target string) *freezer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	f := &freezer{l: l}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		c, err := l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			return
		}
		f.wg.Add(2)
		go f.pipe(c, s)
		go f.pipe(s, c)
	}()
	tb.Cleanup(func() { l.Close() })
	return f
}

func (f *freezer) pipe(dst, src net.Conn) {
	defer f.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			dst.Close()
			return
		}
		if f.frozen.Load() {
			continue // swallowed: neither side hears of the other again
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			src.Close()
			return
		}
	}
}

// A client whose network silently goes away is dropped after the missed
// keepalives: its session detaches instead of staying held.
func TestKeepaliveDropsASilentClient(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	sshd.SetKeepalive(h.Server, 100*time.Millisecond)
	f := newFreezer(t, h.Addr)
	c, err := gossh.Dial("tcp", f.l.Addr().String(), h.ClientConfig("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	term := testhost.OpenTerm(t, c, "")
	id := term.Expect(`session ([0-9a-f-]{36})`)[1]
	term.Expect("go> ")
	if st := state(h, id); st != repl.StateLive {
		t.Fatalf("state %s before the freeze; want live", st)
	}
	f.frozen.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for state(h, id) == repl.StateLive {
		if time.Now().After(deadline) {
			t.Fatal("the session is still held 10 s after its client went silent")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func state(h *testhost.Host, id string) repl.State {
	for _, info := range h.Manager.List("alice") {
		if info.ID == id {
			return info.State
		}
	}
	return ""
}
