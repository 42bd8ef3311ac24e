package artifacts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listSums lists s and returns the sums by name.
func listSums(tb testing.TB, s *Store) map[string]string {
	tb.Helper()
	list, err := s.List()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range list {
		out[a.Name] = a.SHA256
	}
	return out
}

// A 64 GiB sparse file made by the session's code costs a listing nothing:
// it is larger than what a listing may hash, so it is listed with "-", also
// after a Chtimes, which makes it a new version.
func TestListSparseHugeFileNotHashed(t *testing.T) {
	s, _ := newStore(t, Limits{})
	p := filepath.Join(s.Dir(), "files", "huge")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for i, change := range []func(){func() {}, func() {
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}} {
		change()
		if got := listSums(t, s)["files/huge"]; got != NotHashed {
			t.Errorf("listing %d: got sum %q; want %q", i, got, NotHashed)
		}
		if got := s.HashedBytes(); got != 0 {
			t.Errorf("listing %d: hashed %d bytes; want 0", i, got)
		}
	}
}

// A file the session's code wrote is hashed once per version: listing it
// again reads nothing; touching it makes a new version, hashed once more.
// Uploads are never hashed by a listing, not even after a restart.
func TestListHashesOncePerVersion(t *testing.T) {
	s, _ := newStore(t, Limits{})
	if _, err := s.Add("files/up.txt", strings.NewReader("uploaded"), ""); err != nil {
		t.Fatal(err)
	}
	body := []byte("written by the session")
	p := filepath.Join(s.Dir(), "files", "own.txt")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	n := int64(len(body))
	for i, want := range []int64{n, n} {
		if got := listSums(t, s)["files/own.txt"]; got != sha(body) {
			t.Errorf("listing %d: got sum %s; want %s", i, got, sha(body))
		}
		if got := s.HashedBytes(); got != want {
			t.Errorf("listing %d: hashed %d bytes in all; want %d", i, got, want)
		}
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	listSums(t, s)
	listSums(t, s)
	if got := s.HashedBytes(); got != 2*n {
		t.Errorf("after a Chtimes: hashed %d bytes in all; want %d", got, 2*n)
	}

	// The host restarts: the sums log says what is known.
	s.Close()
	s2, err := Open(s.Dir(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	sums := listSums(t, s2)
	if sums["files/up.txt"] != sha([]byte("uploaded")) || sums["files/own.txt"] != sha(body) {
		t.Errorf("after a restart: got %v", sums)
	}
	if got := s2.HashedBytes(); got != 0 {
		t.Errorf("after a restart: hashed %d bytes; want 0", got)
	}
}

// One listing hashes at most MaxHashBytes: what does not fit is "-" and is
// hashed by the next listing.
func TestListHashBudget(t *testing.T) {
	s, _ := newStore(t, Limits{MaxHashBytes: 1000})
	for _, f := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(s.Dir(), "files", f), bytes.Repeat([]byte(f), 600), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := listSums(t, s)
	if first["files/a"] == NotHashed || first["files/b"] != NotHashed {
		t.Errorf("first listing: got %v; want a hashed, b %q", first, NotHashed)
	}
	second := listSums(t, s)
	if second["files/b"] != sha(bytes.Repeat([]byte("b"), 600)) {
		t.Errorf("second listing: got %v; want b hashed", second)
	}
	if got := s.HashedBytes(); got != 1200 {
		t.Errorf("hashed %d bytes in all; want 1200", got)
	}
}

// Records in .meta that are not small regular files (planted by code that
// could write there) are a clear error naming their archive, read without
// blocking and without reading them whole; the session goes on (removing
// the archive clears it), and a bad sums log is dropped and rebuilt.
func TestHostileMetaRecords(t *testing.T) {
	plant := map[string]func(p string) error{
		"sparse-8GiB": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(8 << 30)
		},
		"link-to-dev-zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"device-node-zero": func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|5) },
		"fifo":             func(p string) error { return syscall.Mkfifo(p, 0o644) },
	}
	for name, make := range plant {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t, Limits{})
			if _, err := s.Add("archives/a.tar", bytes.NewReader(tarball(t, false, file("x", "x"))), ""); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Add("files/keep.txt", strings.NewReader("keep"), ""); err != nil {
				t.Fatal(err)
			}
			meta := filepath.Join(s.Dir(), metaDir)
			os.Remove(filepath.Join(meta, "a.tar"))
			if err := make(filepath.Join(meta, "a.tar")); err != nil {
				t.Fatal(err)
			}
			_, err := s.List()
			if !errors.Is(err, ErrBadArchive) || !strings.Contains(err.Error(), `"archives/a.tar": bad archive record`) {
				t.Fatalf("got %v; want a bad archive record of archives/a.tar", err)
			}
			t.Log(err)
			if err := s.Remove("archives/a.tar"); err != nil {
				t.Fatalf("remove the archive: %v", err)
			}
			if sums := listSums(t, s); sums["files/keep.txt"] != sha([]byte("keep")) {
				t.Errorf("after removing it: got %v; want keep.txt listed", sums)
			}

			// The same thing as the sums log: dropped, Open works, the
			// sums are computed again.
			s.Close()
			os.Remove(filepath.Join(meta, "sums.log"))
			if err := make(filepath.Join(meta, "sums.log")); err != nil {
				t.Fatal(err)
			}
			s2, err := Open(s.Dir(), Limits{})
			if err != nil {
				t.Fatalf("open with a bad sums log: %v", err)
			}
			defer s2.Close()
			if sums := listSums(t, s2); sums["files/keep.txt"] != sha([]byte("keep")) {
				t.Errorf("with a bad sums log: got %v", sums)
			}
			if fi, err := os.Lstat(filepath.Join(meta, "sums.log")); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("got %v, %v for the sums log; want a regular file again", fi, err)
			}
		})
	}
}

// A fifo or a device in files/ is not a file to read: Open refuses it at
// once instead of blocking on the fifo or streaming /dev/zero.
func TestOpenRegularOnly(t *testing.T) {
	s, _ := newStore(t, Limits{})
	files := filepath.Join(s.Dir(), "files")
	if err := syscall.Mkfifo(filepath.Join(files, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(files, "zero"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(files, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"files/fifo", "files/zero", "files/out"} {
		f, err := s.Open(p)
		if err == nil {
			f.Close()
			t.Errorf("open %s: got a file; want an error", p)
			continue
		}
		t.Log(err)
	}
}

// A sums log replaced by a link to a file of the session is never written
// through: the host's appends go to a fresh log of its own.
func TestSumsLogLinkNotFollowed(t *testing.T) {
	s, _ := newStore(t, Limits{})
	if _, err := s.Add("files/keep.txt", strings.NewReader("keep"), ""); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(s.Dir(), metaDir, "sums.log")
	os.Remove(log)
	if err := os.Symlink("../files/keep.txt", log); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("files/new.txt", strings.NewReader("new"), ""); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dir(), "files", "keep.txt")); err != nil || string(b) != "keep" {
		t.Errorf("got %q, %v in keep.txt; want it untouched", b, err)
	}
	if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("got %v, %v for the sums log; want a regular file", fi, err)
	}
}
