package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenAndRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ok", "hello")
	write("big", strings.Repeat("x", 100))
	if err := os.Symlink("ok", filepath.Join(dir, "link-inside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	if b, err := Read(root, "ok", 16); err != nil || string(b) != "hello" {
		t.Errorf("ok: %q, %v", b, err)
	}
	for _, tc := range []struct{ name, want string }{
		{"big", "big: 100 bytes, larger than 16 bytes"},
		{"link-inside", "link-inside: not a regular file (a symlink)"},
		{"link-out", "link-out: not a regular file (a symlink)"},
		{"fifo", "fifo: not a regular file (a fifo)"}, // and the open did not block
		{"sub", "sub: not a regular file (a directory)"},
		{"../outside", "escapes"},
	} {
		_, err := Read(root, tc.name, 16)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Read(root, "fifo", 16); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v is not ErrNotRegular", err)
	}
	// No bound: any size opens.
	if f, fi, err := Open(root, "big", os.O_RDONLY, 0); err != nil || fi.Size() != 100 {
		t.Errorf("unbounded open: %v, %v", fi, err)
	} else {
		f.Close()
	}
}

// A file that grows after its size was checked is still read only up to max.
func TestReadBoundedStopsAtMax(t *testing.T) {
	r := strings.NewReader(strings.Repeat("y", 64))
	if _, err := ReadBounded(r, "grown", 8, 32); err == nil || !strings.Contains(err.Error(), "larger than 32 bytes") {
		t.Errorf("got %v; want larger than 32 bytes", err)
	}
	if b, err := ReadBounded(strings.NewReader("abc"), "small", 3, 32); err != nil || string(b) != "abc" {
		t.Errorf("small: %q, %v", b, err)
	}
}
