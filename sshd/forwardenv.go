package sshd

import (
	"strings"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// A login carried to another node (forward.go) arrives there over the
// nodes' own connection, without the forced command's original and from
// the forwarding node's address. So the forwarding node sends, before the
// shell, the session environment it made for its client (sessionEnv:
// USER, SSH_CLIENT, SSH_CONNECTION, TERM, the accepted LANG/LC_*,
// SSH_ORIGINAL_COMMAND) as one env request, nodeEnvKey=NAME=VALUE\x00…,
// and the serving node gives that to the session instead of its own. It is
// taken only from a login with the node key and only as sandbox.CheckEnv
// accepts it; anyone else's is refused like any other variable.

// nodeEnvKey is the env request carrying a forwarded session environment.
const nodeEnvKey = "REPLHOST_SESSION_ENV"

// maxNodeEnv bounds its value: sandbox's bounds, a separator per variable.
const maxNodeEnv = sandbox.MaxEnvBytes + 2*sandbox.MaxEnvVars

// takeNodeEnv keeps value, the forwarded environment of a login with
// grant, in st; it reports whether it did.
func (s *Server) takeNodeEnv(st *chanState, grant users.Grant, value string) bool {
	if grant.Source != nodeSource || st.nodeEnv != nil || len(value) > maxNodeEnv {
		return false
	}
	env := []string{}
	if value != "" {
		env = strings.Split(value, "\x00")
	}
	if err := sandbox.CheckEnv(env); err != nil {
		s.log.Warn("forwarded session environment refused", "err", err)
		return false
	}
	st.nodeEnv = env
	return true
}

// sendNodeEnv sends on ch the session environment this node makes for
// sess, for the node it is forwarded to. One that node refuses (a release
// before this one) leaves it the environment it makes itself.
func (s *Server) sendNodeEnv(sess ssh.Session, ch gossh.Channel) error {
	env := s.sessionEnv(sess)
	if sandbox.CheckEnv(env) != nil {
		return nil // sessionEnv checks each part; their sum may pass the bounds
	}
	_, err := ch.SendRequest("env", true, gossh.Marshal(struct{ Name, Value string }{nodeEnvKey, strings.Join(env, "\x00")}))
	return err
}
