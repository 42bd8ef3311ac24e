package sshd

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
)

// maxScript bounds a script read from stdin: it is held in memory whole,
// so it gets the cell limit of both isolation modes, checked as it streams.
const maxScript = repl.MaxCell

// route sends a channel where it belongs: a shell with a PTY to a new
// interactive session, a shell without one to script mode, an exec request
// to its command.
func (s *Server) route(sess ssh.Session) {
	if _, ok := grantOf(sess.Context()); !ok {
		sess.Exit(255) // no verified key: cannot happen, never serve it
		return
	}
	if s.routeElsewhere(sess, "") {
		return
	}
	if st := s.channelOf(sess); st.original != "" {
		s.log.Info("forced command", "user", sess.User(), "command", truncate(sess.RawCommand(), 80), "original_command", truncate(st.original, 80))
	}
	if strings.TrimSpace(sess.RawCommand()) != "" {
		s.exec(sess)
		return
	}
	if _, _, isPty := sess.Pty(); isPty {
		sess.Exit(s.interactiveNew(sess))
		return
	}
	sess.Exit(s.script(sess, ""))
}

// interactiveNew opens a new session on the user's terminal.
func (s *Server) interactiveNew(sess ssh.Session) int {
	rs, err := s.cfg.Manager.Create(sess.Context(), sess.User(), repl.WithEnv(s.sessionEnv(sess)))
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer s.cfg.Manager.Release(rs)
	return rs.Interact(sess.Context(), s.terminal(sess, rs.ID()))
}

// terminal describes the client's PTY to the REPL. Window changes come
// from the request filter (gliderlabs' own window channel blocks its
// request loop when nobody reads it).
func (s *Server) terminal(sess ssh.Session, id string) repl.Terminal {
	pty, _, _ := sess.Pty()
	return repl.Terminal{
		In:          sess,
		Out:         sess,
		Width:       pty.Window.Width,
		Resize:      s.channelOf(sess).resize,
		History:     s.cfg.Users.HistoryFile(sess.User()),
		EvalTimeout: s.cfg.EvalTimeout,
		AttachHint:  attachHint(sess, id),
	}
}

// attachHint is the ssh command that comes back to session id.
func attachHint(sess ssh.Session, id string) string {
	host, port := "HOST", "2222"
	if a, ok := sess.LocalAddr().(*net.TCPAddr); ok {
		host, port = a.IP.String(), strconv.Itoa(a.Port)
		if a.IP.To4() == nil {
			host = "[" + host + "]"
		}
	}
	// The host cannot know the client's key options: say where they go.
	return fmt.Sprintf("ssh -t -p %s %s@%s attach %s (with the -i or -F options you logged in with)", port, sess.User(), host, id)
}

// script runs stdin as a program: in a new throwaway session, or in session
// id when given. Only what the code prints is output.
func (s *Server) script(sess ssh.Session, id string) int {
	// The session first: a wrong uuid is told at once, not after stdin ends.
	rs, release, err := s.session(sess, id)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer release()
	src, err := io.ReadAll(io.LimitReader(sess, maxScript+1))
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: read script: %v\n", err)
		return 1
	}
	if len(src) > maxScript {
		fmt.Fprintf(sess.Stderr(), "error: script larger than the cell limit of %d MiB\n", maxScript>>20)
		return 1
	}
	return rs.RunScript(sess.Context(), string(src), sess, sess.Stderr())
}

// session returns the user's session id, or a new throwaway (ephemeral)
// session when id is empty; release ends the hold (and the throwaway
// session).
func (s *Server) session(sess ssh.Session, id string) (*repl.Session, func(), error) {
	m := s.cfg.Manager
	if id == "" {
		rs, err := m.CreateEphemeral(sess.Context(), sess.User(), repl.WithEnv(s.sessionEnv(sess)))
		if err != nil {
			return nil, nil, err
		}
		return rs, func() { m.Release(rs); m.Kill(rs.Owner(), rs.ID()) }, nil
	}
	rs, err := m.Acquire(sess.User(), id)
	if err != nil {
		return nil, nil, err
	}
	return rs, func() { m.Release(rs) }, nil
}
