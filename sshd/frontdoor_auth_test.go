package sshd_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sshd"
	gossh "golang.org/x/crypto/ssh"
)

// querySigner has a user's public key but not the private key: the client
// asks whether the key would do (a query), then stalls where it would sign.
type querySigner struct {
	pub     gossh.PublicKey
	queried chan struct{} // the server answered the query with PK_OK
	stop    chan struct{}
}

func (q querySigner) PublicKey() gossh.PublicKey { return q.pub }

func (q querySigner) Sign(io.Reader, []byte) (*gossh.Signature, error) {
	q.queried <- struct{}{}
	<-q.stop
	return nil, errors.New("no private key")
}

// events records the front door's decisions.
type events struct {
	mu  sync.Mutex
	all []sshd.AuthEvent
}

func (e *events) add(ev sshd.AuthEvent) { e.mu.Lock(); e.all = append(e.all, ev); e.mu.Unlock() }

func (e *events) accepted(user, remotePrefix string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Accepted && ev.User == user && strings.HasPrefix(ev.Remote, remotePrefix) {
			n++
		}
	}
	return n
}

// A public key offered without its private key (a query) authenticates
// nothing: the connection keeps its unauthenticated slot and is closed at
// the login grace time, and alice, who has the key, still gets in.
func TestPublicKeyQueryIsNotAuthentication(t *testing.T) {
	log := &logBuffer{}
	ev := &events{}
	h := testhost.Start(t, testhost.Options{LogTo: log, SSH: sshd.Config{
		PerSourceMaxStartups: 2, HandshakeTimeout: 3 * time.Second, OnAuth: ev.add, Penalties: &sshd.Penalties{},
	}})
	q := querySigner{pub: h.Signer("alice").PublicKey(), queried: make(chan struct{}, 2), stop: make(chan struct{})}
	cfg := withAuth(h.ClientConfig("alice"), gossh.PublicKeys(q))
	ended := make(chan error, 2)
	for range 2 {
		nc := dialFrom(t, "127.0.0.2", h.Addr)
		go func() {
			_, _, _, err := gossh.NewClientConn(nc, h.Addr, cfg)
			ended <- err
		}()
	}
	<-q.queried
	<-q.queried // both keys were accepted as queries; the clients now stall
	if admitted(t, dialFrom(t, "127.0.0.2", h.Addr)) {
		t.Error("a third connection from 127.0.0.2 was admitted: the queried ones left the unauthenticated count")
	}
	if r := h.Run(t, "alice", "eval 1", ""); r.Stdout != "1\n" {
		t.Errorf("alice beside two queries: %+v", r)
	}
	// The host closes both at the login grace time (3 s).
	for i := 0; ev.refusals("login grace time over") < 2; i++ {
		if i == 600 {
			t.Fatal("the query-only connections were not closed at the grace time")
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(q.stop)
	for range 2 {
		if err := <-ended; err == nil {
			t.Error("a query-only connection completed its handshake")
		}
	}
	if n := ev.accepted("alice", "127.0.0.2:"); n != 0 {
		t.Errorf("%d query-only connections from 127.0.0.2 counted as authenticated", n)
	}
	if got := log.lines("login grace time over", "user=alice"); len(got) != 2 {
		t.Errorf("grace time lines for the queries: %q; want 2\n%s", got, log)
	}
	if got := log.lines("msg=authenticated", "remote=127.0.0.2"); len(got) != 0 {
		t.Errorf("a query was logged as authenticated: %q", got)
	}
}

func (e *events) refusals(reason string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if !ev.Accepted && ev.Reason == reason {
			n++
		}
	}
	return n
}

func newSigner(tb testing.TB) gossh.Signer {
	tb.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Every key offered counts toward MaxAuthTries (6), as in OpenSSH: alice's
// key as the seventh is refused, as the sixth it logs in.
func TestEveryOfferedKeyCountsTowardMaxAuthTries(t *testing.T) {
	log := &logBuffer{}
	h := testhost.Start(t, testhost.Options{LogTo: log, SSH: sshd.Config{Penalties: &sshd.Penalties{}}})
	tries := func(strangers int) error {
		var keys []gossh.Signer
		for range strangers {
			keys = append(keys, newSigner(t))
		}
		c, err := gossh.Dial("tcp", h.Addr, withAuth(h.ClientConfig("alice"), gossh.PublicKeys(append(keys, h.Signer("alice"))...)))
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := tries(6); err == nil {
		t.Error("alice's key offered seventh logged in; want refused (MaxAuthTries 6)")
	}
	if got := log.lines("login refused", "user=alice", "MaxAuthTries"); len(got) == 0 {
		t.Errorf("no refusal naming MaxAuthTries in the log:\n%s", log)
	}
	if err := tries(5); err != nil {
		t.Errorf("alice's key offered sixth: %v; want in", err)
	}
}

// A refused login is logged with the user, the address, the key's
// fingerprint and the reason, and told to OnAuth.
func TestRefusedLoginsAreLoggedWithTheirReason(t *testing.T) {
	log := &logBuffer{}
	ev := &events{}
	h := testhost.Start(t, testhost.Options{LogTo: log, SSH: sshd.Config{OnAuth: ev.add, Penalties: &sshd.Penalties{}}})
	stranger := newSigner(t)
	fp := gossh.FingerprintSHA256(stranger.PublicKey())
	for _, tt := range []struct{ user, reason string }{
		{"alice", `reason="key not in authorized_keys"`},
		{"mallory", `reason="no such user"`},
	} {
		if c, err := gossh.Dial("tcp", h.Addr, withUser(withAuth(h.ClientConfig("alice"), gossh.PublicKeys(stranger)), tt.user)); err == nil {
			c.Close()
			t.Fatalf("%s with a stranger's key got in", tt.user)
		}
		if got := log.lines("login refused", "user="+tt.user, "remote=127.0.0.1:", "key="+fp, tt.reason); len(got) != 1 {
			t.Errorf("refusal lines for %s: %q; want 1\n%s", tt.user, got, log)
		}
	}
	ev.mu.Lock()
	refused := 0
	for _, e := range ev.all {
		if !e.Accepted && e.Key == fp {
			refused++
		}
	}
	ev.mu.Unlock()
	if refused != 2 {
		t.Errorf("OnAuth saw %d refusals of the stranger's key; want 2", refused)
	}
	if r := h.Run(t, "alice", "eval 1", ""); r.Stdout != "1\n" {
		t.Errorf("alice: %+v", r)
	}
}
