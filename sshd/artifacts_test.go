package sshd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// The isolation suite, after Spark's ArtifactManagerSuite and
// ClassLoaderIsolationSuite: sessions upload the same package path, file
// name and archive name with different content, and each sees its own.
func TestArtifactIsolation(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	type sess struct{ user, id, word string }
	var all []*sess
	for i, u := range []string{"alice", "alice", "bob"} {
		r := h.Run(t, u, "new", "")
		all = append(all, &sess{user: u, id: strings.TrimSpace(r.Stdout), word: fmt.Sprintf("hello%d", i)})
	}
	for _, s := range all {
		uploads := map[string]string{
			"classes/src/greet/greet.go": testhost.GreetPackage(s.word),
			"files/data.txt":             "data of " + s.word,
			"archives/set.tar.gz":        testhost.TarGz(t, map[string]string{s.word + ".txt": s.word}),
		}
		for name, body := range uploads {
			r := h.Run(t, s.user, "artifacts add --session "+s.id+" "+name, body)
			if r.Status != 0 {
				t.Fatalf("%s upload %s: %+v", s.word, name, r)
			}
		}
	}
	for _, s := range all {
		code := `import "greet"; import "os"; import "fmt"
b, _ := os.ReadFile("data.txt")
es, err := os.ReadDir("set.tar.gz")
if err != nil { panic(err) }
fmt.Println(greet.Hello("you"), string(b), es[0].Name(), len(es))`
		r := h.Run(t, s.user, "eval --session "+s.id+" "+code, "")
		want := fmt.Sprintf("%s, you data of %s %s.txt 1\n", s.word, s.word, s.word)
		if r.Stdout != want || r.Status != 0 {
			t.Errorf("session %s: %+v; want %q", s.word, r, want)
		}
	}
	// Killing one removes its directory and leaves the others whole.
	if r := h.Run(t, "alice", "kill "+all[0].id, ""); r.Status != 0 {
		t.Fatalf("kill: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.Root, all[0].id)); !os.IsNotExist(err) {
		t.Errorf("killed session's directory still there: %v", err)
	}
	for _, s := range all[1:] {
		r := h.Run(t, s.user, "artifacts ls --session "+s.id, "")
		if r.Status != 0 || strings.Count(r.Stdout, "\n") != 3 || !strings.Contains(r.Stdout, "files/data.txt ") {
			t.Errorf("session %s after the kill: %+v", s.word, r)
		}
		r = h.Run(t, s.user, `eval --session `+s.id+` import "greet"; greet.Hello("x")`, "")
		if want := fmt.Sprintf("%q\n", s.word+", x"); r.Stdout != want {
			t.Errorf("session %s after the kill: %q; want %q", s.word, r.Stdout, want)
		}
	}
}

// Hostile uploads: one clear line, non-zero status, nothing written.
func TestHostileUploads(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	bobID := strings.TrimSpace(h.Run(t, "bob", "new", "").Stdout)
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "artifacts", "testdata", "hostile", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sum := sha256.Sum256([]byte("right"))
	tests := []struct {
		name, args, body, wantErr string
	}{
		{"dot-dot", "../x", "x", "must start with"},
		{"absolute", "/etc/x", "x", "must be relative"},
		{"escape-from-files", "files/../../x", "x", ""},
		{"zip-slip", "archives/zip-slip.zip", fixture("zip-slip.zip"), ""},
		{"symlink-to-etc", "archives/symlink-etc.tar", fixture("symlink-etc.tar"), ""},
		{"hard-link-outside", "archives/hardlink-out.tar", fixture("hardlink-out.tar"), ""},
		{"gzip-bomb", "archives/bomb.tar.gz", fixture("bomb.tar.gz"), ""},
		{"wrong-sha256", "--sha256 " + hex.EncodeToString(sum[:]) + " files/f.txt", "wrong", "sha256"},
		{"bad-sha256", "--sha256 xyz files/f.txt", "x", ""},
		{"unknown-kind", "etc/passwd", "x", "must start with"},
	}
	h.Run(t, "alice", "artifacts ls --session "+id, "") // opens the store
	before := tree(t, h.Root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Run(t, "alice", "artifacts add --session "+id+" "+tt.args, tt.body)
			if r.Status == 0 || !strings.HasPrefix(r.Stderr, "error: ") || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, tt.wantErr) {
				t.Errorf("got %+v; want one error line containing %q, non-zero status", r, tt.wantErr)
			}
		})
	}
	r := h.Run(t, "bob", "artifacts add --session "+id+" files/x", "x")
	if r.Stderr != "error: no such session\n" || r.Status == 0 {
		t.Errorf("bob uploading into alice's session: %+v", r)
	}
	if after := tree(t, h.Root); after != before {
		t.Errorf("hostile uploads changed the root:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	_ = bobID
}

// tree lists every path under root with its size, for before/after checks
// (session.json is left out: its last-used time moves).
func tree(tb testing.TB, root string) string {
	tb.Helper()
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Name() == "session.json" || strings.HasPrefix(fi.Name(), ".tmp-session.json") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %d\n", rel, map[bool]int64{true: 0, false: fi.Size()}[fi.IsDir()])
		return nil
	})
	return b.String()
}
