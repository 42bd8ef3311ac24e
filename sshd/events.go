package sshd

import (
	"github.com/replhost/replhost/repl"
)

// emit reports a front-door event if the host listens for them.
func (s *Server) emit(e repl.Event) {
	if s.cfg.Events != nil {
		s.cfg.Events(e)
	}
}

// isAdmin reports whether user may see and end every user's sessions.
func (s *Server) isAdmin(user string) bool { return s.cfg.Users.IsAdmin(user) }
