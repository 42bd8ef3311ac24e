package sshd

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

type ctxKey string

const ctxAuthed ctxKey = "replhost-authed"

// authorize is the only way in: a public key listed in the user's
// authorized_keys. (gliderlabs lets everyone in when no handler is set.)
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	ok := s.cfg.Users.Authorized(ctx.User(), key)
	if !ok {
		s.log.Debug("public key refused", "user", ctx.User(), "remote", ctx.RemoteAddr().String(), "key", gossh.FingerprintSHA256(key))
		s.loginEvent(ctx, key, "key not authorized")
		return false
	}
	if done, _ := ctx.Value(ctxAuthed).(*atomic.Bool); done != nil && !done.Swap(true) {
		s.gate.leave()
	}
	s.log.Info("authenticated", "user", ctx.User(), "remote", ctx.RemoteAddr().String(), "key", gossh.FingerprintSHA256(key))
	s.loginEvent(ctx, key, "")
	return true
}

// onConnect admits a connection while fewer than MaxUnauthenticated are in
// their handshake, and closes it if it has not authenticated within
// HandshakeTimeout.
func (s *Server) onConnect(ctx ssh.Context, conn net.Conn) net.Conn {
	if !s.gate.enter() {
		s.log.Warn("connection refused: too many unauthenticated connections", "remote", conn.RemoteAddr().String())
		s.emit(repl.Event{Kind: repl.EventLoginRefused, Remote: conn.RemoteAddr().String(), Reason: "too many unauthenticated connections"})
		return nil
	}
	authed := new(atomic.Bool)
	ctx.SetValue(ctxAuthed, authed)
	remote := conn.RemoteAddr().String()
	s.log.Info("connected", "remote", remote)
	timer := time.AfterFunc(s.cfg.HandshakeTimeout, func() {
		if !authed.Load() {
			s.log.Info("login grace time over", "remote", remote)
			conn.Close()
		}
	})
	return &trackedConn{Conn: conn, onClose: func() {
		timer.Stop()
		if !authed.Swap(true) {
			s.gate.leave()
		}
		s.log.Info("disconnected", "remote", remote)
	}}
}

// trackedConn runs onClose once, when the connection is closed.
type trackedConn struct {
	net.Conn
	once    sync.Once
	onClose func()
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.onClose)
	return err
}

// startupGate counts connections in their handshake.
type startupGate struct {
	max int64
	n   atomic.Int64
}

func newStartupGate(max int) *startupGate { return &startupGate{max: int64(max)} }

func (g *startupGate) enter() bool {
	if g.n.Add(1) > g.max {
		g.n.Add(-1)
		return false
	}
	return true
}

func (g *startupGate) leave() { g.n.Add(-1) }
