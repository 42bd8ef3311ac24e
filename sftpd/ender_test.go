package sftpd

import (
	"io"
	"strings"
	"testing"
)

// exitConn is a channel with an exit status, like an ssh session.
type exitConn struct {
	io.Reader
	io.Writer
	exits, closes int
}

func (c *exitConn) Exit(code int) error { c.exits++; return nil }
func (c *exitConn) Close() error        { c.closes++; return nil }

// Serve ends an ssh session with its exit status, not a bare Close: OpenSSH's
// ssh exits 255 on a channel closed without one, and scp then fails a
// transfer that went well.
func TestServeEndsWithExit(t *testing.T) {
	s, _ := newSessions(t, "alice", "a1")
	c := &exitConn{Reader: strings.NewReader(""), Writer: io.Discard}
	if err := Serve(c, s, "alice"); err != nil {
		t.Fatal(err)
	}
	if c.exits != 1 || c.closes != 0 {
		t.Errorf("got %d exits, %d closes; want 1 exit, 0 closes", c.exits, c.closes)
	}
}
