package sshd

import (
	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

// emit reports a front-door event if the host listens for them.
func (s *Server) emit(e repl.Event) {
	if s.cfg.Events != nil {
		s.cfg.Events(e)
	}
}

// loginEvent reports a login accepted, or refused for reason.
func (s *Server) loginEvent(ctx ssh.Context, key ssh.PublicKey, reason string) {
	if s.cfg.Events == nil {
		return
	}
	e := repl.Event{Kind: repl.EventLogin, User: ctx.User(), Remote: ctx.RemoteAddr().String()}
	if key != nil {
		e.Key = gossh.FingerprintSHA256(key)
	}
	if reason != "" {
		e.Kind, e.Reason = repl.EventLoginRefused, reason
	}
	s.emit(e)
}

// isAdmin reports whether user may see and end every user's sessions.
func (s *Server) isAdmin(user string) bool { return s.cfg.Users.IsAdmin(user) }
