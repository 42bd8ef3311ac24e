// Package sshd is replhost's SSH front door: a gliderlabs/ssh server with a
// host key, public-key authentication per user, middleware (panic recovery
// first, logging, limits), and the routing of shell, exec and sftp requests
// to repl sessions. It knows SSH; it knows nothing of yaegi.
package sshd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// Config configures a Server. Each zero value has the meaning its comment
// gives.
type Config struct {
	// Manager owns the sessions; required.
	Manager *repl.Manager
	// Users authorizes logins by public key; required.
	Users *users.Dir
	// HostKey is the server's host key; required.
	HostKey gossh.Signer
	// Logger receives connect, auth and disconnect events; nil discards.
	Logger *slog.Logger
	// EvalTimeout bounds interactive cells; zero: none.
	EvalTimeout time.Duration
	// ExecEvalTimeout bounds the eval exec command; zero: 60s.
	ExecEvalTimeout time.Duration
	// HandshakeTimeout closes a connection not authenticated by then (OpenSSH's
	// LoginGraceTime); zero: 30s.
	HandshakeTimeout time.Duration
	// MaxAuthTries refuses a connection after this many failed attempts;
	// zero: 6.
	MaxAuthTries int
	// MaxChannels caps the sessions open at once on one connection (OpenSSH's
	// MaxSessions); zero: 10.
	MaxChannels int
	// MaxStartups admits connections still in their handshake as sshd's
	// MaxStartups; zero: 10:30:100.
	MaxStartups MaxStartups
	// PerSourceMaxStartups caps the handshakes of one source address;
	// zero: 8, below MaxStartups' start, so one address alone never makes
	// others meet random early drop; negative: no cap (sshd's "none").
	PerSourceMaxStartups int
	// Penalties refuse sources that fail or stall (PerSourcePenalties);
	// nil: DefaultPenalties; a zero Penalties: none.
	Penalties *Penalties
	// TrustedUserCAKeys is a file of CA keys whose user certificates log in
	// any user named among their principals; "": none.
	TrustedUserCAKeys string
	// OnAuth is told every login decision (an audit log); nil: none.
	OnAuth func(AuthEvent)
	// Events receives logins and refusals (audit log, metrics); nil: none.
	Events repl.Events
	// Cluster routes logins between the nodes of a cluster (cluster.go);
	// nil: every login is served here.
	Cluster Cluster
	// NodeKey is the key nodes of a cluster log in to each other with
	// (ROOT/node_key); nil: no node logins are accepted nor made.
	NodeKey gossh.Signer
}

// Server is the SSH server of a host.
type Server struct {
	cfg      Config
	log      *slog.Logger
	srv      *ssh.Server
	admit    *admission
	refusals refusalLog
	conns    sync.Map        // remote address -> *conn, while in the front door
	channels channelRegistry // channel id -> *chanState
	cas      atomic.Pointer[[]gossh.PublicKey]
	execs    map[string]execCommand

	fwd            nodeConns      // internal connections to other nodes (forwardpool.go)
	handlers       sync.WaitGroup // running handlers: Shutdown and Close wait for them
	keepaliveEvery time.Duration  // keepaliveInterval; shorter in tests
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Manager == nil || cfg.Users == nil || cfg.HostKey == nil {
		return nil, errors.New("sshd: Config needs Manager, Users and HostKey")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.ExecEvalTimeout == 0 {
		cfg.ExecEvalTimeout = 60 * time.Second
	}
	if cfg.HandshakeTimeout == 0 {
		cfg.HandshakeTimeout = 30 * time.Second
	}
	if cfg.MaxAuthTries == 0 {
		cfg.MaxAuthTries = 6
	}
	if cfg.MaxChannels == 0 {
		cfg.MaxChannels = 10
	}
	cfg.Users.SetLogger(cfg.Logger) // skipped authorized_keys lines are the operator's to see
	s := &Server{cfg: cfg, log: cfg.Logger, keepaliveEvery: keepaliveInterval}
	m, per, pen := admissionOf(cfg)
	s.admit = newAdmission(m, per, pen)
	if err := s.loadCAs(cfg.TrustedUserCAKeys); err != nil {
		return nil, err
	}
	s.execs = s.execCommands()
	s.srv = &ssh.Server{
		Version:          "replhost",
		Handler:          chain(s.route, s.recoverPanics, s.keepalive, s.logSessions, s.track),
		PublicKeyHandler: s.offer,
		ConnCallback:     s.onConnect,
		ServerConfigCallback: func(ctx ssh.Context) *gossh.ServerConfig {
			return &gossh.ServerConfig{MaxAuthTries: cfg.MaxAuthTries, Config: gossh.Config{Ciphers: serverCiphers},
				VerifiedPublicKeyCallback: s.verified(ctx), AuthLogCallback: s.authLog(ctx)}
		},
		ConnectionFailedCallback: s.handshakeFailed,
		ChannelHandlers: map[string]ssh.ChannelHandler{
			"session": s.limitChannels(s.filterSessions(ssh.DefaultSessionHandler)),
		},
		SubsystemHandlers: map[string]ssh.SubsystemHandler{
			"sftp": ssh.SubsystemHandler(chain(s.sftp, s.recoverPanics, s.logSessions, s.track)),
		},
	}
	s.srv.AddHostKey(cfg.HostKey)
	return s, nil
}

// Serve accepts connections on l until Shutdown or Close.
func (s *Server) Serve(l net.Listener) error {
	err := s.srv.Serve(quickAckListener{l})
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and waits for open ones, and their
// handlers, to end until ctx is done. Sessions stay (the Manager's Shutdown
// keeps them on disk).
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if werr := s.waitHandlers(ctx); err == nil {
		err = werr
	}
	return err
}

// Close closes the listeners and every connection at once, and waits (a
// few seconds at most) for the handlers to return, so nothing of theirs
// writes after it.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.closeNodeConns()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.waitHandlers(ctx)
	return err
}

func (s *Server) waitHandlers(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// track counts the running handlers.
func (s *Server) track(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		next(sess)
	}
}
