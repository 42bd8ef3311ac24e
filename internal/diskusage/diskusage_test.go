package diskusage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOf(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "data"), make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	// A sparse file of 1 GiB holds (almost) nothing.
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A link out of the tree is counted as a link, never followed.
	if err := os.Symlink("/usr", filepath.Join(dir, "a", "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	u, err := Of(root, ".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(6); u.Inodes != want { // . a a/b a/data a/out sparse
		t.Errorf("inodes: got %d; want %d", u.Inodes, want)
	}
	if u.Bytes < 64<<10 || u.Bytes > 1<<20 {
		t.Errorf("bytes: got %d; want about 64 KiB plus directories", u.Bytes)
	}
	if !u.Over(32<<10, 0) || u.Over(0, 0) || !u.Over(0, 5) {
		t.Errorf("Over misjudges %+v", u)
	}

	if _, err := Of(root, ".", 3); !errors.Is(err, ErrTooMany) {
		t.Errorf("bounded walk: got %v; want ErrTooMany", err)
	}
	if u, err := Of(root, "missing", 0); err != nil || u != (Usage{}) {
		t.Errorf("missing dir: got %+v, %v; want zero, nil", u, err)
	}
}

func TestOfExcept(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"keep", "skip/deep"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "skip", "deep", "big"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	u, err := OfExcept(root, ".", 0, "skip")
	if err != nil {
		t.Fatal(err)
	}
	if u.Inodes != 2 || u.Bytes > 64<<10 { // . keep
		t.Errorf("got %+v; want the two folders outside skip only", u)
	}
	if got, want := InodesFor(1<<30), int64(1<<30/BytesPerInode); got != want {
		t.Errorf("InodesFor(1 GiB): got %d; want %d", got, want)
	}
	if got := InodesFor(1 << 20); got != 1024 {
		t.Errorf("InodesFor(1 MiB): got %d; want the floor of 1024", got)
	}
}
