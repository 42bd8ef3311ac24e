package sshd

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/sandbox"
)

// maxOriginalCommand bounds the SSH_ORIGINAL_COMMAND a session's code
// sees; a longer one is left out (logged), never cut.
const maxOriginalCommand = 32 << 10

// sessionEnv is the environment a session made for sess gives its code,
// as OpenSSH's sshd gives a login's process: USER and LOGNAME,
// SSH_CLIENT and SSH_CONNECTION, TERM of the PTY, then the variables the
// client sent that the request filter accepted (envAllowed; a client's
// TERM wins over the PTY's, as in sshd), and SSH_ORIGINAL_COMMAND when an
// authorized_keys command= (or a certificate's force-command) replaced
// what the client asked for. Everything from the client is checked again
// here: a name that is no shell name or a value with a NUL is dropped.
func (s *Server) sessionEnv(sess ssh.Session) []string {
	if st := s.channelOf(sess); st.nodeEnv != nil && forwarded(sess) {
		return slices.Clone(st.nodeEnv) // made by the node the client logged in to
	}
	env := []string{"USER=" + sess.User(), "LOGNAME=" + sess.User()}
	if c, ok := sess.RemoteAddr().(*net.TCPAddr); ok {
		if l, ok := sess.LocalAddr().(*net.TCPAddr); ok {
			env = append(env, "SSH_CLIENT="+strings.Join([]string{c.IP.String(), strconv.Itoa(c.Port), strconv.Itoa(l.Port)}, " "),
				"SSH_CONNECTION="+strings.Join([]string{c.IP.String(), strconv.Itoa(c.Port), l.IP.String(), strconv.Itoa(l.Port)}, " "))
		}
	}
	if pty, _, ok := sess.Pty(); ok && pty.Term != "" && strings.IndexByte(pty.Term, 0) < 0 {
		env = append(env, "TERM="+pty.Term)
	}
	for _, kv := range sess.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if !envAllowed(name) || !sandbox.EnvName(name) || strings.IndexByte(value, 0) >= 0 {
			continue // REPLHOST_CHANNEL, the filter's own, and anything odd
		}
		env = append(env, kv)
	}
	if original := s.channelOf(sess).original; original != "" {
		if len(original) > maxOriginalCommand || strings.IndexByte(original, 0) >= 0 {
			s.log.Warn("SSH_ORIGINAL_COMMAND left out of the session's environment", "user", sess.User(), "bytes", len(original))
		} else {
			env = append(env, "SSH_ORIGINAL_COMMAND="+original)
		}
	}
	return env
}
