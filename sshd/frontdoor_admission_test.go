package sshd_test

import (
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sshd"
	gossh "golang.org/x/crypto/ssh"
)

// 200 connections from 127.0.0.2 that send nothing hold only the
// per-source share of the handshake slots: the rest are refused at once,
// and alice on 127.0.0.1 logs in while they are held.
func TestStalledSourceDoesNotKeepOthersOut(t *testing.T) {
	log := &logBuffer{}
	h := testhost.Start(t, testhost.Options{LogTo: log})
	in := 0
	for range 200 {
		if admitted(t, dialFrom(t, "127.0.0.2", h.Addr)) {
			in++
		}
	}
	if in != 8 {
		t.Errorf("%d of 200 stalled connections from one source admitted; want 8 (the per-source default)", in)
	}
	c, err := sshFrom(t, h, "127.0.0.1", h.ClientConfig("alice"))
	if err != nil {
		t.Fatalf("alice while 127.0.0.2 stalls: %v", err)
	}
	if r := testhost.RunOn(t, c, "eval 1", ""); r.Stdout != "1\n" {
		t.Errorf("alice: %+v", r)
	}
	if len(log.lines("connection refused", "remote=127.0.0.2", "per-source-max-startups")) == 0 {
		t.Errorf("no logged refusal with its reason:\n%s", log)
	}
}

// Past MaxStartups' full every new connection is refused, whatever its
// source; as the stalled ones go, others get in again.
func TestMaxStartupsFull(t *testing.T) {
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{
		MaxStartups: sshd.MaxStartups{Start: 3, Rate: 100, Full: 3}, PerSourceMaxStartups: -1,
	}})
	var held []interface{ Close() error }
	for range 3 {
		c := dialFrom(t, "127.0.0.2", h.Addr)
		if !admitted(t, c) {
			t.Fatal("a connection below full was refused")
		}
		held = append(held, c)
	}
	if admitted(t, dialFrom(t, "127.0.0.3", h.Addr)) {
		t.Error("a connection past full was admitted")
	}
	for _, c := range held {
		c.Close()
	}
	// The slots come back as the host sees the closes; alice retries until
	// then (bounded), as a client would.
	for i := 0; ; i++ {
		c, err := sshFrom(t, h, "127.0.0.1", h.ClientConfig("alice"))
		if err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("alice after the stalled connections closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A source that fails to log in earns a penalty and is then refused
// before its handshake; other sources are not.
func TestFailingSourceIsPenalised(t *testing.T) {
	log := &logBuffer{}
	h := testhost.Start(t, testhost.Options{LogTo: log, SSH: sshd.Config{
		Penalties: &sshd.Penalties{AuthFail: time.Hour, Min: time.Hour, Max: 2 * time.Hour},
	}})
	if _, err := sshFrom(t, h, "127.0.0.2", withAuth(h.ClientConfig("alice"), gossh.PublicKeys(newSigner(t)))); err == nil {
		t.Fatal("a stranger's key got in")
	}
	// The penalty is earned when the host has closed the failed
	// connection; a client retrying sees it from then on.
	for i := 0; admitted(t, dialFrom(t, "127.0.0.2", h.Addr)); i++ {
		if i == 100 {
			t.Fatal("127.0.0.2 still admitted after failing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(log.lines("connection refused", "remote=127.0.0.2", "penalty")) == 0 {
		t.Errorf("no logged penalty refusal:\n%s", log)
	}
	if _, err := sshFrom(t, h, "127.0.0.1", h.ClientConfig("alice")); err != nil {
		t.Errorf("alice from another address: %v", err)
	}
}

// A source that stalls past the login grace time earns a penalty too.
func TestStallingSourceIsPenalised(t *testing.T) {
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{
		HandshakeTimeout: time.Second,
		Penalties:        &sshd.Penalties{Grace: time.Hour, Min: time.Hour, Max: 2 * time.Hour},
	}})
	c := dialFrom(t, "127.0.0.2", h.Addr)
	if !admitted(t, c) {
		t.Fatal("first connection refused")
	}
	buf := make([]byte, 1)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Read(buf); err == nil {
		t.Fatal("the host sent more to a client that said nothing")
	} // closed at the grace time
	for i := 0; admitted(t, dialFrom(t, "127.0.0.2", h.Addr)); i++ {
		if i == 100 {
			t.Fatal("127.0.0.2 still admitted after stalling")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := sshFrom(t, h, "127.0.0.1", h.ClientConfig("alice")); err != nil {
		t.Errorf("alice from another address: %v", err)
	}
}
