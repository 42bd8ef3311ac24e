package sshd

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

const artifactsUsage = "artifacts add --session UUID [--sha256 HEX] NAME < FILE | artifacts ls --session UUID | artifacts rm --session UUID NAME | artifacts get --session UUID MODULE[@VERSION] ..."

// cmdArtifacts runs `artifacts add|ls|rm|get`. Its arguments are shell-split
// (a file name may be quoted).
func (s *Server) cmdArtifacts(sess ssh.Session, _ string) int {
	args := sess.Command()[1:]
	if len(args) == 0 {
		return usageError(sess, artifactsUsage)
	}
	sub := args[0]
	fs := flag.NewFlagSet("artifacts "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	id := fs.String("session", "", "")
	sum := fs.String("sha256", "", "")
	if err := fs.Parse(args[1:]); err != nil || *id == "" {
		return usageError(sess, artifactsUsage)
	}
	rest := fs.Args()
	rs, err := s.cfg.Manager.Acquire(sess.User(), *id)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer s.cfg.Manager.Release(rs)
	st, err := rs.Store()
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	switch {
	case sub == "add" && len(rest) == 1:
		return s.artifactAdd(sess, st, rest[0], *sum)
	case sub == "ls" && len(rest) == 0 && *sum == "":
		list, err := st.List()
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
			return 1
		}
		for _, a := range list {
			fmt.Fprintf(sess, "%s %d %s\n", lsName(a.Name), a.Size, a.SHA256)
		}
		return 0
	case sub == "get" && len(rest) > 0 && *sum == "":
		return getModules(sess, rs, rest)
	case sub == "rm" && len(rest) == 1 && *sum == "":
		if err := st.Remove(rest[0]); err != nil {
			fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
			return 1
		}
		return 0
	}
	return usageError(sess, artifactsUsage)
}

// lsName is a name as `artifacts ls` prints it: as it is, or Go-quoted if
// it holds a space, a control character or a quote, which only files the
// session's code made can (uploads are refused such names), so that one
// name is always one field of one line.
func lsName(name string) string {
	if strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f }) {
		return strconv.Quote(name)
	}
	return name
}

// artifactAdd stores stdin as the artifact name. The artifact becomes
// visible only once complete, verified, and the client still there: a
// client killed mid-upload also ends its stdin, so before committing, the
// connection is asked whether it is alive.
func (s *Server) artifactAdd(sess ssh.Session, st *artifacts.Store, name, sum string) int {
	up, err := st.Create(name)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	if _, err := up.ReadFrom(sess); err != nil {
		up.Abort()
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	if !clientAlive(sess) {
		up.Abort()
		s.log.Info("upload abandoned: client gone", "user", sess.User(), "name", name)
		return 1
	}
	info, err := up.Commit(sum)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	fmt.Fprintf(sess, "%s %d %s\n", info.Name, info.Size, info.SHA256)
	return 0
}

// clientAlive sends a keepalive over the connection and waits for any
// answer: a dead connection fails it at once.
func clientAlive(sess ssh.Session) bool {
	if sess.Context().Err() != nil {
		return false
	}
	conn, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn)
	if !ok {
		return true
	}
	_, _, err := conn.SendRequest("keepalive@openssh.com", true, nil)
	return err == nil
}

// sessionStores is the Manager as the sftp server sees it: a user's own
// sessions and their stores; on a cluster, the nodes holding the others
// (clustersftp.go).
type sessionStores struct {
	m    *repl.Manager
	s    *Server
	sess ssh.Session
}

func (ss sessionStores) List(user string) []string {
	var ids []string
	for _, info := range ss.m.List(user) {
		ids = append(ids, info.ID)
	}
	return ids
}

func (ss sessionStores) Store(user, id string) (*artifacts.Store, error) {
	// Touch, not Acquire: an sftp request is short, and Release would
	// rewrite (and fsync) session.json for each one.
	rs, err := ss.m.Touch(user, id)
	if err != nil {
		return nil, err
	}
	return rs.Store()
}

// getModules fetches Go modules into the session, as :get does: one line
// per module, an error line and status 1 for any that fails.
func getModules(sess ssh.Session, rs *repl.Session, specs []string) int {
	code := 0
	for _, spec := range specs {
		res, err := rs.GetModule(sess.Context(), spec)
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "error: %s: %v\n", spec, err)
			code = 1
			continue
		}
		fmt.Fprintln(sess, res)
	}
	return code
}
