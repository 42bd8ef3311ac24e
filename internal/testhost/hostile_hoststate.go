package testhost

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// Helpers of the hostile-session-file tests: they plant on disk what a
// compromised worker could leave in its own session directory, so the
// tests hold whether or not the worker can still write there.

// NewUserKey makes an ed25519 key pair for a user and writes its public key
// to dir/name.pub (for `replhost user add`); it returns the signer and the
// public key file.
func NewUserKey(tb testing.TB, dir, name string) (gossh.Signer, string) {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	pub := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(pub, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return signer, pub
}

// PlantSymlink replaces path (whatever it is) with a symlink to target.
func PlantSymlink(tb testing.TB, path, target string) {
	tb.Helper()
	if err := os.RemoveAll(path); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		tb.Fatal(err)
	}
}

// PlantSparse replaces path with a sparse file of size bytes (no blocks
// used: os.Truncate, as a cell could).
func PlantSparse(tb testing.TB, path string, size int64) {
	tb.Helper()
	if err := os.RemoveAll(path); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
}

// SwapDirForSymlink renames dir aside (to dir+".old") and puts a symlink
// to target in its place, as the classes/repl attack did.
func SwapDirForSymlink(tb testing.TB, dir, target string) {
	tb.Helper()
	if err := os.Rename(dir, dir+".old"); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		tb.Fatal(err)
	}
}

// FileBytes is the content of path ("" if missing), to compare before and
// after an attack.
func FileBytes(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	return string(b)
}

// TreeBytes maps every regular file under dir to its content, to compare
// before and after an attack (a missing dir is empty).
func TreeBytes(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Name() != "session.json" {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = FileBytes(tb, p)
		}
		return nil
	})
	return out
}
