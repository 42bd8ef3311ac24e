package sshd

import (
	"context"
	"net"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Bounds of the internal connections kept to other nodes.
const (
	maxChannelsPerNodeConn = 8 // below the other node's MaxChannels (10 by default)
	nodeConnIdle           = 30 * time.Second
)

// nodeConns keeps one internal connection per other node and user, so
// that a forwarded command opens a channel instead of doing a handshake
// (which costs milliseconds). A connection is authenticated as one user:
// channels of different users never share one.
type nodeConns struct {
	mu    sync.Mutex // guards conns and each nodeConn's open and idle
	conns map[nodeConnKey]*nodeConn
}

type nodeConnKey struct{ addr, user string }

type nodeConn struct {
	client *gossh.Client
	open   int         // channels in use
	idle   *time.Timer // closes it when no channel used it for nodeConnIdle
}

// channel opens a session channel to addr as user; done gives it back.
func (s *Server) channel(ctx context.Context, addr, user string) (gossh.Channel, <-chan *gossh.Request, func(), error) {
	key := nodeConnKey{addr, user}
	for attempt := 0; ; attempt++ {
		nc, pooled, err := s.nodeConn(ctx, key)
		if err != nil {
			return nil, nil, nil, err
		}
		// A node that stopped answering (a partition, no FIN) would hold
		// OpenChannel forever: drop its connection after the dial timeout.
		stuck := time.AfterFunc(forwardDialTimeout, func() { s.dropNodeConn(key, nc) })
		ch, in, err := nc.client.OpenChannel("session", nil)
		stuck.Stop()
		if err == nil {
			return ch, in, func() { s.doneWith(key, nc, pooled) }, nil
		}
		s.doneWith(key, nc, pooled)
		s.dropNodeConn(key, nc)
		if attempt > 0 || !pooled {
			return nil, nil, nil, err
		}
		// A kept connection the other node closed meanwhile: dial anew.
	}
}

// nodeConn is a connection to key with room for one more channel: the
// kept one, or a new one (kept if none is).
func (s *Server) nodeConn(ctx context.Context, key nodeConnKey) (*nodeConn, bool, error) {
	s.fwd.mu.Lock()
	if nc, ok := s.fwd.conns[key]; ok && nc.open < maxChannelsPerNodeConn {
		nc.open++
		nc.idle.Stop()
		s.fwd.mu.Unlock()
		return nc, true, nil
	}
	s.fwd.mu.Unlock()
	client, err := s.dialNode(ctx, key)
	if err != nil {
		return nil, false, err
	}
	nc := &nodeConn{client: client, open: 1}
	s.fwd.mu.Lock()
	defer s.fwd.mu.Unlock()
	if _, ok := s.fwd.conns[key]; ok {
		return nc, false, nil // one is kept already: this one ends with its channel
	}
	if s.fwd.conns == nil {
		s.fwd.conns = map[nodeConnKey]*nodeConn{}
	}
	nc.idle = time.AfterFunc(nodeConnIdle, func() { s.idleNodeConn(key, nc) })
	nc.idle.Stop()
	s.fwd.conns[key] = nc
	return nc, true, nil
}

func (s *Server) doneWith(key nodeConnKey, nc *nodeConn, pooled bool) {
	if !pooled {
		nc.client.Close()
		return
	}
	s.fwd.mu.Lock()
	defer s.fwd.mu.Unlock()
	if nc.open--; nc.open == 0 {
		nc.idle.Reset(nodeConnIdle)
	}
}

func (s *Server) idleNodeConn(key nodeConnKey, nc *nodeConn) {
	s.fwd.mu.Lock()
	idle := nc.open == 0 && s.fwd.conns[key] == nc
	if idle {
		delete(s.fwd.conns, key)
	}
	s.fwd.mu.Unlock()
	if idle {
		nc.client.Close()
	}
}

// dropNodeConn forgets a broken connection; its channels fail by themselves.
func (s *Server) dropNodeConn(key nodeConnKey, nc *nodeConn) {
	s.fwd.mu.Lock()
	if s.fwd.conns[key] == nc {
		delete(s.fwd.conns, key)
	}
	s.fwd.mu.Unlock()
	nc.client.Close()
}

// closeNodeConns ends every kept connection (Server.Close).
func (s *Server) closeNodeConns() {
	s.fwd.mu.Lock()
	conns := s.fwd.conns
	s.fwd.conns = nil
	s.fwd.mu.Unlock()
	for _, nc := range conns {
		nc.idle.Stop()
		nc.client.Close()
	}
}

// dialNode logs in to another node as user with the node key.
func (s *Server) dialNode(ctx context.Context, key nodeConnKey) (*gossh.Client, error) {
	cfg := &gossh.ClientConfig{
		User:            key.user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(s.cfg.NodeKey)},
		HostKeyCallback: gossh.FixedHostKey(s.cfg.HostKey.PublicKey()), // all nodes share one host key
		Timeout:         forwardDialTimeout,
	}
	d := net.Dialer{Timeout: forwardDialTimeout}
	c, err := d.DialContext(ctx, "tcp", key.addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(forwardDialTimeout))
	cc, chans, reqs, err := gossh.NewClientConn(c, key.addr, cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return gossh.NewClient(cc, chans, reqs), nil
}
