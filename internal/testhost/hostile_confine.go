package testhost

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
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
		Timeout:         10 * time.Second,
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

// Canary is a session of another user that must keep its state and go on
// journaling while other sessions attack the host.
type Canary struct {
	c     *gossh.Client
	ID    string
	root  string
	beats int
}

// NewCanary makes the canary's session on c, a client of a host whose
// state is in root.
func NewCanary(tb testing.TB, c *gossh.Client, root string) *Canary {
	tb.Helper()
	k := &Canary{c: c, ID: NewSession(tb, c), root: root}
	if r := EvalIn(tb, c, k.ID, "n := 0"); r.Status != 0 {
		tb.Fatalf("canary: %+v", r)
	}
	return k
}

// Beat counts the canary on and checks its value and that the host
// journaled the cell (one more file in classes/repl/).
func (k *Canary) Beat(tb testing.TB) {
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

func (k *Canary) journal(tb testing.TB) int {
	tb.Helper()
	entries, err := os.ReadDir(filepath.Join(k.root, k.ID, "classes", "repl"))
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}
