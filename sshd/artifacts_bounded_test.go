package sshd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sftpd"
)

// hashedBytes is what the session's store has read to hash files.
func hashedBytes(tb testing.TB, h *testhost.Host, user, id string) int64 {
	tb.Helper()
	s, err := h.Manager.Touch(user, id)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := s.Store()
	if err != nil {
		tb.Fatal(err)
	}
	return st.HashedBytes()
}

// A 64 GiB sparse file the session's code made in files/ costs `artifacts
// ls` nothing: it is listed with "-" and never read, also after a Chtimes;
// a small file the code wrote is hashed once, not per listing.
func TestArtifactsLsBoundedHashing(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	upload(t, h, "alice", id, "files/up.txt", "uploaded")
	files := filepath.Join(h.Root, id, "files")
	huge := filepath.Join(files, "huge")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 64<<30); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(files, "own.txt"), []byte("own"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls := func() string {
		t.Helper()
		r := h.Run(t, "alice", "artifacts ls --session "+id, "")
		if r.Status != 0 {
			t.Fatalf("artifacts ls: %+v", r)
		}
		return r.Stdout
	}
	first := ls()
	ownSum := sha256.Sum256([]byte("own"))
	for _, want := range []string{"files/huge 68719476736 -\n", "files/own.txt 3 " + hex.EncodeToString(ownSum[:]) + "\n"} {
		if !strings.Contains(first, want) {
			t.Errorf("got\n%s\nwant a line %q", first, want)
		}
	}
	if got := hashedBytes(t, h, "alice", id); got != 3 {
		t.Errorf("first ls hashed %d bytes; want 3 (own.txt only)", got)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(huge, later, later); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := ls(); got != first {
			t.Errorf("got\n%s\nwant the same listing\n%s", got, first)
		}
	}
	if got := hashedBytes(t, h, "alice", id); got != 3 {
		t.Errorf("after a Chtimes and 3 more listings: hashed %d bytes; want still 3", got)
	}
}

// 100 sftp opens past the per-connection cap each get a clear error, the
// connection goes on, and past the per-user cap across connections the
// user's next open is refused while another user still logs in and works.
func TestSftpHandleCaps(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	upload(t, h, "alice", id, "files/f", "f")
	lim := sftpd.DefaultLimits
	var clients []*sftp.Client
	client := func(user string) *sftp.Client {
		c, err := sftp.NewClient(h.Dial(t, user))
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		return c
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	opened, refused := 0, 0
	c := client("alice")
	for range lim.MaxHandles + 100 {
		f, err := c.Open("/" + id + "/files/f")
		switch {
		case err == nil:
			defer f.Close()
			opened++
		case strings.Contains(err.Error(), "too many open handles: at most 64 per connection"):
			refused++
		default:
			t.Fatalf("open: got %v; want the cap's error", err)
		}
	}
	if opened != lim.MaxHandles || refused != 100 {
		t.Errorf("opened %d, refused %d; want %d and 100", opened, refused, lim.MaxHandles)
	}
	if _, err := c.Stat("/" + id + "/files/f"); err != nil {
		t.Errorf("the capped connection goes on: stat: %v", err)
	}
	// More connections of alice, up to her descriptors' cap.
	for opened < lim.MaxUserFiles {
		c := client("alice")
		for range min(lim.MaxHandles, lim.MaxUserFiles-opened) {
			f, err := c.Open("/" + id + "/files/f")
			if err != nil {
				t.Fatalf("open %d: %v", opened, err)
			}
			defer f.Close()
			opened++
		}
	}
	if _, err := client("alice").Open("/" + id + "/files/f"); err == nil || !strings.Contains(err.Error(), "too many open files for user alice") {
		t.Errorf("open past alice's cap: got %v; want the per-user refusal", err)
	}
	// Bob is not affected.
	bobID := strings.TrimSpace(h.Run(t, "bob", "new", "").Stdout)
	upload(t, h, "bob", bobID, "files/b", "bob's")
	f, err := client("bob").Open("/" + bobID + "/files/b")
	if err != nil {
		t.Fatalf("bob's open: %v", err)
	}
	f.Close()
	if r := h.Run(t, "bob", "eval 1+1", ""); r.Stdout != "2\n" {
		t.Errorf("bob's eval: %+v", r)
	}
}

// A zip of a million entries sent through `artifacts add` is refused by its
// count in one line, and the session and the host go on.
func TestArtifactsAddMillionEntryZip(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	var zip strings.Builder
	zip.WriteString("PK\x03\x04" + strings.Repeat("\x00", 26)) // one local header, all zeros
	hdr := "PK\x01\x02\x14\x00\x14\x00" + strings.Repeat("\x00", 38)
	const n = 1_000_000
	zip.WriteString(strings.Repeat(hdr, n))
	// A zip64 end record (count n), its locator, and the end record.
	le := func(v uint64, size int) string {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return string(b)
	}
	dirSize, end64At := uint64(46*n), uint64(30+46*n)
	zip.WriteString("PK\x06\x06" + le(44, 8) + le(0, 4) + le(0, 8) + le(n, 8) + le(n, 8) + le(dirSize, 8) + le(30, 8))
	zip.WriteString("PK\x06\x07" + le(0, 4) + le(end64At, 8) + le(1, 4))
	zip.WriteString("PK\x05\x06" + le(0, 4) + le(0xffff, 2) + le(0xffff, 2) + le(0xffffffff, 4) + le(0xffffffff, 4) + le(0, 2))
	r := h.Run(t, "alice", "artifacts add --session "+id+" archives/million.zip", zip.String())
	if r.Status == 0 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "more than 10000 entries in its central directory") {
		t.Errorf("got %+v; want one line refusing the count", r)
	}
	if r := h.Run(t, "alice", "artifacts ls --session "+id, ""); r.Status != 0 || r.Stdout != "" {
		t.Errorf("after the refusal: %+v; want an empty listing", r)
	}
}

// A file the session's code named with a newline cannot forge a line of
// `artifacts ls`: such a name is printed quoted, as one field.
func TestArtifactsLsQuotesOddNames(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	odd := "x 1 " + strings.Repeat("0", 64) + "\nforged"
	if err := os.WriteFile(filepath.Join(h.Root, id, "files", odd), []byte("odd"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.Run(t, "alice", "artifacts ls --session "+id, "")
	sum := sha256.Sum256([]byte("odd"))
	want := `"files/x 1 ` + strings.Repeat("0", 64) + `\nforged" 3 ` + hex.EncodeToString(sum[:]) + "\n"
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("got %+v; want %q", r, want)
	}
}
