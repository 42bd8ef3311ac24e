package sftpd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pkg/sftp"
)

// openMany opens p for reading n times on c, keeping the handles that
// open, and returns how many did and the last error.
func openMany(tb testing.TB, c *sftp.Client, n int, p string) (int, error) {
	tb.Helper()
	ok := 0
	var last error
	for range n {
		f, err := c.Open(p)
		if err != nil {
			last = err
			continue
		}
		tb.Cleanup(func() { f.Close() })
		ok++
	}
	return ok, last
}

// One connection gets MaxHandles handles and a clear error for each open
// past them; closing one makes room again.
func TestHandlesPerConnectionCapped(t *testing.T) {
	s, root := newSessions(t, "alice", "a1")
	if err := os.WriteFile(filepath.Join(root, "a1", "files", "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &Server{Limits: Limits{MaxHandles: 64, MaxUserFiles: 1000}}
	l := dialServer(t, srv, s, "alice")
	got, err := openMany(t, l.c, 64+100, "/a1/files/f")
	if got != 64 {
		t.Errorf("opened %d handles; want 64", got)
	}
	if err == nil || !strings.Contains(l.server.errors(), "too many open handles: at most 64 per connection") {
		t.Errorf("got %v, stderr %q; want a clear refusal", err, l.server.errors())
	}
	if n := strings.Count(l.server.errors(), "too many open handles"); n != 100 {
		t.Errorf("got %d refusals on stderr; want 100", n)
	}
	if got := srv.UserFiles("alice"); got != 64 {
		t.Errorf("alice holds %d descriptors; want 64", got)
	}
	// Folder listings count as handles too, though they hold no descriptor.
	if _, err := l.c.ReadDir("/a1/files"); err == nil {
		t.Errorf("readdir with every handle taken: got no error")
	}
	l.c.Close()
	l.cut()
	err = <-l.done
	l.done <- err // for the cleanup
	if got := srv.UserFiles("alice"); got != 0 {
		t.Errorf("after the connection ended alice holds %d descriptors; want 0", got)
	}
}

// A user's descriptors are capped across connections, and another user's
// opens go on.
func TestUserFilesCappedAcrossConnections(t *testing.T) {
	s, root := newSessions(t, "alice", "a1", "bob", "b1")
	for _, id := range []string{"a1", "b1"} {
		if err := os.WriteFile(filepath.Join(root, id, "files", "f"), []byte("f"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := &Server{Limits: Limits{MaxHandles: 64, MaxUserFiles: 100}}
	total := 0
	for i := range 3 {
		l := dialServer(t, srv, s, "alice")
		n, _ := openMany(t, l.c, 64, "/a1/files/f")
		total += n
		if i == 2 && !strings.Contains(l.server.errors(), "too many open files for user alice: at most 100") {
			t.Errorf("third connection: stderr %q; want the per-user refusal", l.server.errors())
		}
		// Uploads hold a descriptor too.
		if i == 2 {
			if err := put(t, l.c, "/a1/files/up", []byte("x")); err == nil {
				t.Errorf("an upload past the per-user cap: got no error")
			}
		}
	}
	if total != 100 {
		t.Errorf("alice opened %d files over 3 connections; want 100", total)
	}
	b := dialServer(t, srv, s, "bob")
	if n, err := openMany(t, b.c, 10, "/b1/files/f"); n != 10 {
		t.Errorf("bob opened %d of 10: %v", n, err)
	}
	if err := put(t, b.c, "/b1/files/up", []byte("x")); err != nil {
		t.Errorf("bob's upload: %v", err)
	}
}

// Reading a fifo or a device planted in files/ is refused at open: the
// host neither blocks on the fifo nor streams /dev/zero.
func TestReadRegularFilesOnly(t *testing.T) {
	s, root := newSessions(t, "alice", "a1")
	files := filepath.Join(root, "a1", "files")
	if err := syscall.Mkfifo(filepath.Join(files, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(files, "zero"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
		t.Fatal(err)
	}
	l := dial(t, s, "alice")
	for _, p := range []string{"fifo", "zero"} {
		f, err := l.c.Open("/a1/files/" + p)
		if err == nil {
			f.Close()
			t.Errorf("open %s: got a handle; want an error", p)
		}
	}
	if got := l.server.errors(); !strings.Contains(got, "not a regular file (a fifo)") || !strings.Contains(got, "not a regular file (a device)") {
		t.Errorf("stderr %q; want both refusals", got)
	}
}
