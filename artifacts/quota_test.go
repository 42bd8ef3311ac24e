package artifacts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An upload that would take the session past its quota is refused with one
// line saying disk quota exceeded and leaves nothing; files the session's
// code wrote count too; another session's uploads go on.
func TestQuotaRefusesUploads(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name  string
		setup func(tb testing.TB, s *Store) // what the session holds before
		up    string
		data  func(tb testing.TB) []byte
	}{
		{"one-file-too-big", nil, "files/big.bin", func(testing.TB) []byte { return make([]byte, 2*mib) }},
		{"code-wrote-most", func(tb testing.TB, s *Store) {
			if err := os.WriteFile(filepath.Join(s.Dir(), "files", "own"), bytes.Repeat([]byte{1}, 900<<10), 0o644); err != nil {
				tb.Fatal(err)
			}
		}, "files/more.bin", func(testing.TB) []byte { return make([]byte, 200<<10) }},
		{"package-source", nil, "classes/src/p/p.go", func(testing.TB) []byte { return make([]byte, 2*mib) }},
		{"archive-unpacks-past", nil, "archives/a.tgz", func(tb testing.TB) []byte {
			return tarball(tb, true, file("a", strings.Repeat("0", 700<<10)), file("b", strings.Repeat("0", 700<<10)))
		}},
		{"archive-too-many-entries", nil, "archives/n.tar", func(tb testing.TB) []byte {
			var es []entry
			for i := range 100 {
				es = append(es, file(strings.Repeat("f", i+1), ""))
			}
			return tarball(tb, false, es...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, parent := newStore(t, Limits{}, Quota(mib, 80))
			other, _ := newStore(t, Limits{}, Quota(mib, 80))
			if tt.setup != nil {
				tt.setup(t, s)
			}
			before := tree(t, parent)
			_, err := s.Add(tt.up, bytes.NewReader(tt.data(t)), "")
			if !errors.Is(err, ErrQuota) || !strings.Contains(err.Error(), "disk quota exceeded") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v; want one line saying disk quota exceeded", err)
			}
			t.Log(err)
			sameTree(t, tree(t, parent), before)
			noTemp(t, s)
			if got := s.reserved.Load(); got != 0 {
				t.Errorf("got %d bytes still reserved; want 0", got)
			}
			// Within the quota, the same session still takes uploads, and
			// the other session is not affected at all.
			if _, err := s.Add("files/small.txt", strings.NewReader("small"), ""); err != nil {
				t.Errorf("a small upload after the refusal: %v", err)
			}
			if _, err := other.Add("files/x.bin", bytes.NewReader(make([]byte, 512<<10)), ""); err != nil {
				t.Errorf("another session's upload: %v", err)
			}
		})
	}
}

// Concurrent uploads share the quota exactly: of two that each fit alone
// but not together, one is refused.
func TestQuotaConcurrentUploads(t *testing.T) {
	s, _ := newStore(t, Limits{}, Quota(1<<20, 0))
	a, err := s.Create("files/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create("files/b")
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 600<<10)
	if _, err := a.Write(chunk); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write(chunk); !errors.Is(err, ErrQuota) {
		t.Fatalf("second upload: got %v; want ErrQuota", err)
	}
	if _, err := b.Commit(""); !errors.Is(err, ErrQuota) {
		t.Errorf("commit of the refused upload: got %v; want ErrQuota", err)
	}
	if _, err := a.Commit(""); err != nil {
		t.Errorf("commit of the first: %v", err)
	}
	if got := s.reserved.Load(); got != 0 {
		t.Errorf("got %d bytes still reserved; want 0", got)
	}
}

// With an owner, what the store writes under files/ belongs to it (the
// worker's uid), before it is visible; packages and archives stay the host's.
func TestOwnerOfFiles(t *testing.T) {
	const uid, gid = 54321, 54322
	s, _ := newStore(t, Limits{}, Owner(uid, gid))
	for _, up := range []struct {
		name string
		data []byte
	}{
		{"files/d/x.txt", []byte("x")},
		{"classes/src/p/p.go", []byte("package p")},
		{"archives/a.tar#set", tarball(t, false, dir("in/"), file("in/f", "f"), symlink("l", "in/f"))},
	} {
		if _, err := s.Add(up.name, bytes.NewReader(up.data), ""); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]bool{
		"files": true, "files/d": true, "files/d/x.txt": true,
		"files/set": true, "files/set/in": true, "files/set/in/f": true, "files/set/l": true,
		"classes/src/p/p.go": false, "archives/a.tar": false, ".meta/a.tar": false,
	} {
		fi, err := os.Lstat(filepath.Join(s.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if got := st.Uid == uid && st.Gid == gid; got != want {
			t.Errorf("%s: owned by %d:%d; want the owner: %v", p, st.Uid, st.Gid, want)
		}
	}
}
