package testhost

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// AddUser adds user name, with a new key, to the users of root (a running
// host reads them at each login) and returns the key.
func AddUser(tb testing.TB, root, name string) gossh.Signer {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := users.Open(root).Add(name, gossh.MarshalAuthorizedKey(signer.PublicKey())); err != nil {
		tb.Fatal(err)
	}
	return signer
}

// DialKey logs in to addr as name with key, checking the host's key.
func DialKey(tb testing.TB, addr, name string, key gossh.Signer, hostKey gossh.PublicKey) *gossh.Client {
	tb.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            name,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.FixedHostKey(hostKey),
		Timeout:         30 * time.Second, // handshake bound, generous for a loaded machine
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// NewSession runs `new` on c and returns the session's uuid.
func NewSession(tb testing.TB, c *gossh.Client) string {
	tb.Helper()
	r := RunOn(tb, c, "new", "")
	id := strings.TrimSpace(r.Stdout)
	if r.Status != 0 || len(id) != 36 {
		tb.Fatalf("new: %+v", r)
	}
	return id
}

// EvalIn runs code in session id over c.
func EvalIn(tb testing.TB, c *gossh.Client, id, code string) Result {
	tb.Helper()
	return RunOn(tb, c, "eval --session "+id+" "+code, "")
}

// JournalCanary is a session of another user that must keep its state and
// go on journaling while other sessions attack the host; it beats when the
// test says (Canary beats on its own).
type JournalCanary struct {
	c     *gossh.Client
	ID    string
	beats int
}

// NewJournalCanary makes the canary's session on c.
func NewJournalCanary(tb testing.TB, c *gossh.Client) *JournalCanary {
	tb.Helper()
	k := &JournalCanary{c: c, ID: NewSession(tb, c)}
	if r := EvalIn(tb, c, k.ID, "n := 0"); r.Status != 0 {
		tb.Fatalf("canary: %+v", r)
	}
	return k
}

// Beat counts the canary on and checks its value and that the host
// journaled the cell (one more in its :journal).
func (k *JournalCanary) Beat(tb testing.TB) {
	tb.Helper()
	before := k.journal(tb)
	k.beats++
	r := EvalIn(tb, k.c, k.ID, "n++; n")
	if want := fmt.Sprintf("%d\n", k.beats); r.Status != 0 || r.Stdout != want {
		tb.Errorf("canary beat %d: %+v; want %q", k.beats, r, want)
	}
	if after := k.journal(tb); after <= before {
		tb.Errorf("canary beat %d: journal has %d cells, had %d; want one more", k.beats, after, before)
	}
}

func (k *JournalCanary) journal(tb testing.TB) int {
	tb.Helper()
	r := EvalIn(tb, k.c, k.ID, ":journal")
	if strings.Contains(r.Stdout, "journal: empty") {
		return 0
	}
	var n int
	if _, err := fmt.Sscanf(r.Stdout, "journal: %d cell", &n); err != nil || r.Status != 0 {
		tb.Fatalf("canary :journal: %+v (%v)", r, err)
	}
	return n
}
