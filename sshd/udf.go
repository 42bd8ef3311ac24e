package sshd

import (
	"fmt"

	"github.com/gliderlabs/ssh"
)

const udfUsage = "udf call --session UUID NAME < RECORDS"

// cmdUDF runs `udf call --session UUID NAME`: stdin's lines through the
// session's UDF, results on stdout in input order, one line per failed
// record on stderr; status 0 when every record succeeded, 1 otherwise. A
// client that goes away (Ctrl-C, a closed pipe) stops the work.
func (s *Server) cmdUDF(sess ssh.Session, _ string) int {
	args := sess.Command()[1:]
	if len(args) != 4 || args[0] != "call" || args[1] != "--session" {
		if len(args) == 4 && args[0] == "call" && args[2] == "--session" {
			args = []string{"call", "--session", args[3], args[1]}
		} else {
			return usageError(sess, udfUsage)
		}
	}
	id, name := args[2], args[3]
	rs, err := s.cfg.Manager.Acquire(sess.User(), id)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	defer s.cfg.Manager.Release(rs)
	failed, err := rs.CallUDF(sess.Context(), name, sess, sess, sess.Stderr())
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "error: %v\n", err)
		return 1
	}
	if failed > 0 {
		return 1 // each failed record has had its line on stderr
	}
	return 0
}
