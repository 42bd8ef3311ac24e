package sshd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// forwardDialTimeout bounds the connection and handshake to another node.
const forwardDialTimeout = 10 * time.Second

// forward carries sess to the node at addr over an internal SSH connection
// authenticated with the node key, as sess's user: its terminal, locale,
// command or subsystem, stdin, stdout, stderr, window changes and exit
// status, so that the client sees the other node as this one. Buffers are
// io.Copy's and the SSH channel windows: nothing grows with the stream.
func (s *Server) forward(sess ssh.Session, addr, subsystem string) int {
	ctx := sess.Context()
	cfg := &gossh.ClientConfig{
		User:            sess.User(),
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(s.cfg.NodeKey)},
		HostKeyCallback: gossh.FixedHostKey(s.cfg.HostKey.PublicKey()), // all nodes share one host key
		Timeout:         forwardDialTimeout,
	}
	d := net.Dialer{Timeout: forwardDialTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	nc.SetDeadline(time.Now().Add(forwardDialTimeout))
	cc, chans, reqs, err := gossh.NewClientConn(nc, addr, cfg)
	if err != nil {
		nc.Close()
		return s.forwardFailed(sess, addr, err)
	}
	nc.SetDeadline(time.Time{})
	client := gossh.NewClient(cc, chans, reqs)
	defer client.Close()
	rs, err := client.NewSession()
	if err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	defer rs.Close()
	for _, kv := range sess.Environ() {
		if name, value, ok := strings.Cut(kv, "="); ok && name != channelEnvKey {
			rs.Setenv(name, value) // refused ones are refused there too
		}
	}
	if pty, _, isPty := sess.Pty(); isPty {
		if err := rs.RequestPty(pty.Term, pty.Window.Height, pty.Window.Width, gossh.TerminalModes{}); err != nil {
			return s.forwardFailed(sess, addr, err)
		}
	}
	stdin, err := rs.StdinPipe()
	if err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	rs.Stdout, rs.Stderr = sess, sess.Stderr()
	switch {
	case subsystem != "":
		err = rs.RequestSubsystem(subsystem)
	case strings.TrimSpace(sess.RawCommand()) != "":
		err = rs.Start(sess.RawCommand())
	default:
		err = rs.Shell()
	}
	if err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	s.log.Debug("forwarded", "user", sess.User(), "node", addr, "command", truncate(sess.RawCommand(), 80), "subsystem", subsystem)
	done := make(chan struct{})
	defer close(done)
	go func() {
		io.Copy(stdin, sess)
		stdin.Close() // the client's EOF, passed on
	}()
	go s.forwardWindow(sess, rs, done)
	go func() {
		select {
		case <-ctx.Done(): // the client went away
			client.Close()
		case <-done:
		}
	}()
	return exitStatusOf(rs.Wait())
}

// forwardWindow passes the client's window changes on until done.
func (s *Server) forwardWindow(sess ssh.Session, rs *gossh.Session, done <-chan struct{}) {
	win := s.channelOf(sess).window
	if win == nil {
		return
	}
	for {
		select {
		case w := <-win:
			rs.WindowChange(w.Height, w.Width)
		case <-done:
			return
		}
	}
}

// exitStatusOf is the remote command's exit status as the client gets it.
func exitStatusOf(err error) int {
	var exit *gossh.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitStatus()
	}
	return 255 // the connection ended without a status (sshd's own)
}

func (s *Server) forwardFailed(sess ssh.Session, addr string, err error) int {
	s.log.Warn("forward to node failed", "user", sess.User(), "node", addr, "err", err)
	fmt.Fprintf(sess.Stderr(), "error: the node serving this session (%s) cannot be reached; try again\n", addr)
	return 255
}
