package users

import (
	"crypto/ed25519"
	"crypto/rand"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"
)

func newKey(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	s, err := gossh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return s
}

func TestAddAuthorizeRemove(t *testing.T) {
	d := Open(t.TempDir())
	alice, other := newKey(t), newKey(t)
	n, err := d.Add("alice", AuthorizedLine(alice, "alice@laptop"))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.True(t, authorized(d, "alice", alice.PublicKey()))
	assert.False(t, authorized(d, "alice", other.PublicKey()), "a key of nobody")
	assert.False(t, authorized(d, "bob", alice.PublicKey()), "an unknown user")
	assert.False(t, authorized(d, "../alice", alice.PublicKey()), "a path as a user name")

	// A second key is added, not replacing the first.
	_, err = d.Add("alice", AuthorizedLine(other, ""))
	require.NoError(t, err)
	assert.True(t, authorized(d, "alice", alice.PublicKey()))
	assert.True(t, authorized(d, "alice", other.PublicKey()))

	names, err := d.List()
	require.NoError(t, err)
	assert.Equal(t, []string{"alice"}, names)

	require.NoError(t, d.Remove("alice"))
	assert.False(t, authorized(d, "alice", alice.PublicKey()))
	assert.ErrorIs(t, d.Remove("alice"), ErrNoUser)
}

func TestAddRefusesBadInputAndWritesNothing(t *testing.T) {
	root := t.TempDir()
	d := Open(root)
	tests := []struct{ name, user, keys string }{
		{"bad-name", "Alice Smith", string(AuthorizedLine(newKey(t), ""))},
		{"path-name", "../x", string(AuthorizedLine(newKey(t), ""))},
		{"not-a-key", "alice", "hello world\n"},
		{"empty", "alice", "\n\n"},
		{"one-bad-line-of-two", "alice", string(AuthorizedLine(newKey(t), "")) + "ssh-ed25519 garbage\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Add(tt.user, []byte(tt.keys))
			assert.Error(t, err)
		})
	}
	_, err := os.Stat(filepath.Join(root, "users"))
	assert.True(t, os.IsNotExist(err), "refused adds created %s/users", root)
}

func TestLoadOrCreateKeyKeepsTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host_ed25519")
	k1, created, err := LoadOrCreateKey(path, "host")
	require.NoError(t, err)
	assert.True(t, created)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	k2, created, err := LoadOrCreateKey(path, "host")
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, k1.PublicKey().Marshal(), k2.PublicKey().Marshal())
}

func authorized(d *Dir, user string, key gossh.PublicKey) bool {
	_, err := d.Authorize(Login{User: user, Key: key, Addr: netip.MustParseAddr("127.0.0.1")})
	return err == nil
}
