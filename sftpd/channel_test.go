package sftpd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// recordConn is a channel with an exit status that records what was
// written to it, and how much of it had arrived when Exit came.
type recordConn struct {
	io.Reader
	mu       sync.Mutex
	got      bytes.Buffer
	atExit   int
	exits    int
	failWith error // every Write fails with it, if set
}

func (c *recordConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failWith != nil {
		return 0, c.failWith
	}
	return c.got.Write(p)
}

func (c *recordConn) Exit(int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exits++
	c.atExit = c.got.Len()
	return nil
}

func (c *recordConn) Close() error { return errors.New("closed without an exit status") }

// Responses queued from behind all go out, in order, before the exit
// status; a second Close does nothing more.
func TestChannelWritesAllBeforeExit(t *testing.T) {
	rc := &recordConn{Reader: strings.NewReader("")}
	c := newChannel(rc, 64)
	var want bytes.Buffer
	for i := range 5000 {
		p := fmt.Appendf(nil, "response %d;", i)
		if i%100 == 0 {
			p = bytes.Repeat([]byte{byte(i)}, 100<<10) // past maxQueued now and then
		}
		want.Write(p)
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write %d: got %d, %v; want %d, nil", i, n, err, len(p))
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !bytes.Equal(rc.got.Bytes(), want.Bytes()) {
		t.Errorf("got %d bytes; want the %d written, in order", rc.got.Len(), want.Len())
	}
	if rc.exits != 1 || rc.atExit != want.Len() {
		t.Errorf("got %d exits, after %d bytes; want 1, after all %d", rc.exits, rc.atExit, want.Len())
	}
	if _, err := c.Write([]byte("late")); err == nil {
		t.Errorf("got nil from Write after Close; want an error")
	}
}

// Once a write to the channel fails, the writes after it fail too, and
// Close still ends the channel.
func TestChannelWriteFailureSticks(t *testing.T) {
	broken := errors.New("connection lost")
	rc := &recordConn{Reader: strings.NewReader(""), failWith: broken}
	c := newChannel(rc, 64)
	var err error
	for range 1000 { // the first writes may be queued before the failure is known
		if _, err = c.Write(make([]byte, 64<<10)); err != nil {
			break
		}
	}
	if !errors.Is(err, broken) {
		t.Errorf("got %v; want %v", err, broken)
	}
	if err := c.Close(); err != nil || rc.exits != 1 {
		t.Errorf("got %v and %d exits from Close; want nil and 1", err, rc.exits)
	}
}
