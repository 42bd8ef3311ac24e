package sshd

import (
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Keepalive settings, as OpenSSH's ClientAliveInterval and
// ClientAliveCountMax: a connection whose client stops answering is closed,
// so that its sessions detach (and can be evicted) instead of staying held
// until the kernel gives up on the TCP connection.
const (
	keepaliveInterval = 15 * time.Second
	keepaliveMissed   = 3
)

// keepalive probes the client of each session channel while its handler
// runs.
func (s *Server) keepalive(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		conn, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn)
		if ok {
			done := make(chan struct{})
			defer close(done)
			go probe(conn, done, s.keepaliveEvery)
		}
		next(sess)
	}
}

// probe sends a keepalive every interval; after keepaliveMissed without an
// answer in time it closes the connection.
func probe(conn gossh.Conn, done <-chan struct{}, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := conn.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case err := <-answered:
			if err != nil {
				conn.Close()
				return
			}
			missed = 0
		case <-time.After(interval):
			if missed++; missed >= keepaliveMissed {
				conn.Close()
				return
			}
		case <-done:
			return
		}
	}
}
