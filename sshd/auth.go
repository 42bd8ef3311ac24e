package sshd

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

type ctxKey string

const (
	ctxConn  ctxKey = "replhost-conn"
	ctxGrant ctxKey = "replhost-grant"
)

// AuthEvent is one decision of the front door, for an audit log: a login
// accepted or refused, or a connection refused before its handshake.
type AuthEvent struct {
	Time     time.Time
	Accepted bool
	User     string // "" before the client named one
	Remote   string
	Key      string // SHA256 fingerprint of the key offered, if any
	CA       string // fingerprint of the certificate's authority, if any
	Reason   string // why refused; where the grant came from when accepted
}

// conn is what the front door knows of one connection. Authentication is
// decided in two steps: offer (x/crypto's PublicKeyCallback, which also
// answers queries) only notes what a key would be granted; verified
// (VerifiedPublicKeyCallback, after the signature checked out) is the one
// place a connection becomes authenticated.
type conn struct {
	net.Conn
	s      *Server
	addr   netip.Addr
	remote string
	start  time.Time
	timer  *time.Timer
	once   sync.Once

	mu        sync.Mutex // guards the fields below
	user      string
	offered   int                    // keys offered, queries included
	grants    map[string]users.Grant // offered keys that would be accepted
	lastKey   string                 // fingerprint of the last key refused
	reason    string                 // why it was refused
	attempted bool                   // any authentication request seen
	failed    bool                   // a request was refused
	authed    bool
	graceOver bool
	ended     bool // the front door closed it; nothing more to log
	slot      bool // holds an admission slot
}

// onConnect admits a connection by MaxStartups, PerSourceMaxStartups and
// penalties, and closes it if it has not authenticated within
// HandshakeTimeout.
func (s *Server) onConnect(ctx ssh.Context, nc net.Conn) net.Conn {
	ap, _ := netip.ParseAddrPort(nc.RemoteAddr().String())
	addr := ap.Addr().Unmap()
	if ok, reason := s.admit.admit(addr); !ok {
		s.refusedBeforeAuth(nc.RemoteAddr().String(), reason)
		return nil
	}
	c := &conn{Conn: nc, s: s, addr: addr, remote: nc.RemoteAddr().String(), start: time.Now(), slot: true, grants: map[string]users.Grant{}}
	ctx.SetValue(ctxConn, c)
	s.conns.Store(c.remote, c)
	s.log.Debug("connected", "remote", c.remote)
	c.timer = time.AfterFunc(s.cfg.HandshakeTimeout, c.graceTimeOver)
	return c
}

func (s *Server) refusedBeforeAuth(remote, reason string) {
	if ok, held := s.refusals.allow(time.Now()); ok {
		s.log.Warn("connection refused", "remote", remote, "reason", reason, "suppressed", held)
	}
	s.event(AuthEvent{Remote: remote, Reason: reason})
}

func (c *conn) graceTimeOver() {
	c.mu.Lock()
	over := !c.authed
	c.graceOver = over
	user := c.user
	c.mu.Unlock()
	if over {
		c.s.log.Info("login grace time over", "user", user, "remote", c.remote)
		c.s.event(AuthEvent{User: user, Remote: c.remote, Reason: "login grace time over"})
		c.Conn.Close()
	}
}

// Close ends the connection once: its slot goes back, and a source that
// never authenticated earns its penalty.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.timer.Stop()
		c.mu.Lock()
		slot, authed := c.slot, c.authed
		c.slot = false
		var penalty time.Duration
		pen := c.s.admit.penalties()
		switch {
		case authed:
		case c.graceOver:
			penalty = pen.Grace
		case c.failed:
			penalty = pen.AuthFail
		case !c.attempted:
			penalty = pen.NoAuth
		}
		c.mu.Unlock()
		if slot {
			c.s.admit.leave(c.addr)
		}
		c.s.admit.penalise(c.addr, penalty)
		c.s.conns.CompareAndDelete(c.remote, c)
		c.s.log.Debug("disconnected", "remote", c.remote)
	})
	return err
}

// connOf is the front door's record of ctx's connection.
func connOf(ctx ssh.Context) *conn {
	c, _ := ctx.Value(ctxConn).(*conn)
	return c
}

// offer decides what key would be granted (the public-key handler; called
// for queries too, so it grants nothing by itself). Every key offered counts
// toward MaxAuthTries, as in OpenSSH.
func (s *Server) offer(ctx ssh.Context, key ssh.PublicKey) bool {
	c := connOf(ctx)
	if c == nil {
		return false
	}
	fp := keyFingerprint(key)
	c.mu.Lock()
	c.user = ctx.User()
	c.offered++
	tooMany := c.offered > s.cfg.MaxAuthTries
	c.mu.Unlock()
	if tooMany {
		// Logged here: the connection ends before x/crypto's own log
		// callback would run, as sshd ends it.
		c.mu.Lock()
		c.failed, c.ended = true, true
		c.mu.Unlock()
		reason := "too many authentication attempts (MaxAuthTries)"
		s.log.Info("login refused", "user", ctx.User(), "remote", c.remote, "method", "publickey", "key", fp, "reason", reason)
		s.event(AuthEvent{User: ctx.User(), Remote: c.remote, Key: fp, Reason: reason})
		c.Conn.Close()
		return false
	}
	g, err := s.cfg.Users.Authorize(users.Login{User: ctx.User(), Key: key, Addr: c.addr, TrustedCAs: s.trustedCAs()})
	if ng, ok := s.nodeGrant(ctx.User(), key); ok {
		g, err = ng, nil // a login another node forwards (cluster.go)
	}
	if err != nil {
		c.refuse(fp, err.Error())
		return false
	}
	c.mu.Lock()
	c.grants[string(key.Marshal())] = g
	c.mu.Unlock()
	return true
}

func (c *conn) refuse(fp, reason string) {
	c.mu.Lock()
	c.lastKey, c.reason = fp, reason
	c.mu.Unlock()
}

// verified runs only after the client proved it holds key: the connection
// is authenticated now, with the grant noted when the key was offered.
func (s *Server) verified(ctx ssh.Context) func(gossh.ConnMetadata, gossh.PublicKey, *gossh.Permissions, string) (*gossh.Permissions, error) {
	return func(meta gossh.ConnMetadata, key gossh.PublicKey, _ *gossh.Permissions, _ string) (*gossh.Permissions, error) {
		c := connOf(ctx)
		if c == nil {
			return nil, errors.New("no connection state")
		}
		c.mu.Lock()
		g, ok := c.grants[string(key.Marshal())]
		if !ok {
			c.mu.Unlock()
			return nil, errors.New("key was not offered")
		}
		c.authed = true
		slot := c.slot
		c.slot = false
		c.mu.Unlock()
		c.timer.Stop()
		if slot {
			s.admit.leave(c.addr)
		}
		ctx.SetValue(ctxGrant, g)
		fp := keyFingerprint(key)
		s.log.Info("authenticated", "user", meta.User(), "remote", c.remote, "key", fp, "ca", g.CA, "by", g.Source)
		s.event(AuthEvent{Accepted: true, User: meta.User(), Remote: c.remote, Key: fp, CA: g.CA, Reason: g.Source})
		return &gossh.Permissions{}, nil
	}
}

// authLog logs each refused authentication request with its user, key and
// reason (x/crypto calls it for every request but accepted queries).
func (s *Server) authLog(ctx ssh.Context) func(gossh.ConnMetadata, string, error) {
	return func(meta gossh.ConnMetadata, method string, err error) {
		c := connOf(ctx)
		if c == nil || err == nil {
			return
		}
		c.mu.Lock()
		c.user = meta.User()
		c.attempted = true
		if method == "none" || c.ended {
			c.mu.Unlock()
			return // every client asks first; not a failure
		}
		c.failed = true
		key, reason := "", err.Error()
		if method == "publickey" && c.reason != "" {
			key, reason = c.lastKey, c.reason
			c.reason = ""
		}
		c.mu.Unlock()
		s.log.Info("login refused", "user", meta.User(), "remote", c.remote, "method", method, "key", key, "reason", reason)
		s.event(AuthEvent{User: meta.User(), Remote: c.remote, Key: key, Reason: reason})
	}
}

// handshakeFailed logs a connection that ended before it authenticated.
func (s *Server) handshakeFailed(nc net.Conn, err error) {
	v, ok := s.conns.Load(nc.RemoteAddr().String())
	c, _ := v.(*conn)
	if !ok || c == nil {
		s.log.Info("handshake failed", "remote", nc.RemoteAddr().String(), "err", err)
		return
	}
	c.mu.Lock()
	user, key, reason := c.user, c.lastKey, c.reason
	c.mu.Unlock()
	if reason == "" {
		reason = err.Error()
	}
	s.log.Info("handshake failed", "user", user, "remote", c.remote, "key", key, "reason", reason)
}

func (s *Server) event(e AuthEvent) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if s.cfg.OnAuth != nil {
		s.cfg.OnAuth(e)
	}
	ev := repl.Event{Kind: repl.EventLogin, User: e.User, Remote: e.Remote, Key: e.Key}
	if !e.Accepted {
		ev.Kind, ev.Reason = repl.EventLoginRefused, e.Reason
	}
	s.emit(ev)
}

// keyFingerprint names a key as sshd logs it; a certificate by its key.
func keyFingerprint(k gossh.PublicKey) string {
	if cert, ok := k.(*gossh.Certificate); ok {
		return cert.Type() + " " + gossh.FingerprintSHA256(cert.Key) + " ID " + cert.KeyId
	}
	return gossh.FingerprintSHA256(k)
}

// grantOf is what the connection's verified key allows; ok is false when
// no key was verified, and the caller must then refuse.
func grantOf(ctx ssh.Context) (g users.Grant, ok bool) {
	g, ok = ctx.Value(ctxGrant).(users.Grant)
	return g, ok
}
