package sshd

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gliderlabs/ssh"
)

// middleware wraps a handler with one cross-cutting concern.
type middleware func(next ssh.Handler) ssh.Handler

// chain applies the middleware to h, the last one outermost.
func chain(h ssh.Handler, mw ...middleware) ssh.Handler {
	for _, m := range mw {
		h = m(h)
	}
	return h
}

// recoverPanics keeps a panic in one user's handler from ending every
// user's session: the user gets one line and status 255, the host goes on.
func (s *Server) recoverPanics(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("handler panic", "user", sess.User(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				fmt.Fprintln(sess.Stderr(), "error: internal error; the session's state is kept")
				sess.Exit(255)
			}
		}()
		next(sess)
	}
}

// logSessions logs each channel's request and how it ended.
func (s *Server) logSessions(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		_, _, pty := sess.Pty()
		s.log.Info("session start", "user", sess.User(), "remote", sess.RemoteAddr().String(), "command", truncate(sess.RawCommand(), 80), "pty", pty, "subsystem", sess.Subsystem())
		next(sess)
		s.log.Info("session end", "user", sess.User(), "remote", sess.RemoteAddr().String(), "duration", time.Since(start).Round(time.Millisecond))
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
