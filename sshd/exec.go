package sshd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sftpd"
)

// execCommand is one command of `ssh HOST COMMAND ...`. args is the raw
// command line after the command's name, as the client sent it.
type execCommand struct {
	usage string
	run   func(sess ssh.Session, args string) int
}

func (s *Server) execCommands() map[string]execCommand {
	return map[string]execCommand{
		"new":       {"new", s.cmdNew},
		"eval":      {"eval [--session UUID] CODE", s.cmdEval},
		"attach":    {"attach UUID", s.cmdAttach},
		"sessions":  {"sessions", s.cmdSessions},
		"kill":      {"kill UUID", s.cmdKill},
		"help":      {"help", s.cmdHelp},
		"artifacts": {artifactsUsage, s.cmdArtifacts},
		"udf":       {udfUsage, s.cmdUDF},
	}
}

// exec runs the command the client asked for. The raw command line is used,
// not gliderlabs' shell-split one, so code arrives as it was typed.
func (s *Server) exec(sess ssh.Session) {
	raw := strings.TrimLeft(sess.RawCommand(), " \t")
	name, args, _ := strings.Cut(raw, " ")
	name = strings.TrimSpace(name)
	cmd, ok := s.execs[name]
	if !ok {
		fmt.Fprintf(sess.Stderr(), "error: unknown command %q (try: help)\n", name)
		sess.Exit(2)
		return
	}
	sess.Exit(cmd.run(sess, args))
}

func usageError(sess ssh.Session, usage string) int {
	fmt.Fprintf(sess.Stderr(), "error: usage: %s\n", usage)
	return 2
}

func (s *Server) cmdHelp(sess ssh.Session, _ string) int {
	names := []string{"new", "eval", "attach", "sessions", "kill", "help"}
	for extra := range s.execs {
		if !contains(names, extra) {
			names = append(names, extra)
		}
	}
	fmt.Fprintln(sess, "commands (ssh HOST COMMAND ...; without one: a new session, or a script on stdin):")
	for _, n := range names {
		fmt.Fprintf(sess, "  %s\n", s.execs[n].usage)
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (s *Server) cmdNew(sess ssh.Session, args string) int {
	if strings.TrimSpace(args) != "" {
		return usageError(sess, s.execs["new"].usage)
	}
	rs, err := s.cfg.Manager.Create(sess.Context(), sess.User(), repl.WithEnv(s.sessionEnv(sess)))
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	s.cfg.Manager.Release(rs)
	fmt.Fprintln(sess, rs.ID())
	return 0
}

// cmdEval runs CODE, the rest of the raw command line verbatim, showing the
// values of expression statements as the prompt would.
func (s *Server) cmdEval(sess ssh.Session, args string) int {
	id, code, err := sessionFlag(args)
	if err != nil || strings.TrimSpace(code) == "" {
		return usageError(sess, s.execs["eval"].usage)
	}
	rs, release, err := s.session(sess, id)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer release()
	ctx, cancel := context.WithTimeout(sess.Context(), s.cfg.ExecEvalTimeout)
	defer cancel()
	err = rs.RunCells(ctx, code, true, sess, sess.Stderr())
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Fprintf(sess.Stderr(), "error: timed out after %s\n", s.cfg.ExecEvalTimeout)
		return 1
	}
	return repl.ExitStatus(sess.Stderr(), err)
}

// sessionFlag takes a leading "--session UUID" (or --session=UUID) off args
// and returns the rest verbatim.
func sessionFlag(args string) (id, rest string, err error) {
	rest = strings.TrimLeft(args, " ")
	v, ok := strings.CutPrefix(rest, "--session")
	if !ok {
		return "", rest, nil
	}
	if after, ok := strings.CutPrefix(v, "="); ok {
		v = after
	} else if strings.HasPrefix(v, " ") {
		v = strings.TrimLeft(v, " ")
	} else {
		return "", "", fmt.Errorf("bad --session")
	}
	id, rest, _ = strings.Cut(v, " ")
	if id == "" {
		return "", "", fmt.Errorf("--session needs a UUID")
	}
	return id, rest, nil
}

// cmdAttach re-attaches a terminal to a session; without a PTY it runs
// stdin as a script in that session.
func (s *Server) cmdAttach(sess ssh.Session, args string) int {
	f := strings.Fields(args)
	if len(f) != 1 {
		return usageError(sess, s.execs["attach"].usage)
	}
	if _, _, isPty := sess.Pty(); !isPty {
		return s.script(sess, f[0])
	}
	rs, err := s.cfg.Manager.Acquire(sess.User(), f[0])
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer s.cfg.Manager.Release(rs)
	return rs.Interact(sess.Context(), s.terminal(sess, rs.ID()))
}

func (s *Server) cmdSessions(sess ssh.Session, args string) int {
	switch strings.TrimSpace(args) {
	case "":
		for _, info := range s.cfg.Manager.List(sess.User()) {
			fmt.Fprintf(sess, "%s %s %s %s\n", info.ID, info.State,
				info.Created.UTC().Format(time.RFC3339), info.LastUsed.UTC().Format(time.RFC3339))
		}
		return 0
	case "--all":
		if !s.isAdmin(sess.User()) {
			return noSuchCommand(sess)
		}
		for _, info := range s.cfg.Manager.ListAll() {
			fmt.Fprintln(sess, repl.FormatInfo(info))
		}
		return 0
	}
	return usageError(sess, s.execs["sessions"].usage)
}

// noSuchCommand answers a non-admin's use of an admin command: the same as
// for a command that does not exist.
func noSuchCommand(sess ssh.Session) int {
	fmt.Fprintln(sess.Stderr(), "error: no such command")
	return 2
}

func (s *Server) cmdKill(sess ssh.Session, args string) int {
	f := strings.Fields(args)
	if len(f) != 1 {
		return usageError(sess, s.execs["kill"].usage)
	}
	kill := s.cfg.Manager.Kill
	if s.isAdmin(sess.User()) {
		kill = func(_, id string) error { return s.cfg.Manager.KillAny(id) }
	}
	if err := kill(sess.User(), f[0]); err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	return 0
}

// sftp serves the sftp subsystem (sftp, and scp since OpenSSH 9) over the
// user's own sessions' artifacts.
func (s *Server) sftp(sess ssh.Session) {
	if s.routeElsewhere(sess, "sftp") {
		return
	}
	if err := sftpd.Serve(sess, sessionStores{s.cfg.Manager, s, sess}, sess.User()); err != nil {
		s.log.Info("sftp ended", "user", sess.User(), "err", err)
	}
}
