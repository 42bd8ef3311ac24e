package sftpd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/artifacts"
)

// sessions is a real-store Sessions: user → id → store.
type sessions struct {
	mu     sync.Mutex
	stores map[string]map[string]*artifacts.Store
}

func (s *sessions) List(user string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.stores[user] {
		ids = append(ids, id)
	}
	return ids
}

func (s *sessions) Store(user, id string) (*artifacts.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stores[user][id]; ok {
		return st, nil
	}
	return nil, errors.New("no such session")
}

// A single host: no session is another host's.
func (s *sessions) Elsewhere(user, id string, err error) (string, bool) { return "", false }
func (s *sessions) Dial(user, host string) (*Remote, error) {
	return nil, errors.New("single host")
}

// newSessions makes a session store for each user/id pair under one root.
func newSessions(tb testing.TB, pairs ...string) (*sessions, string) {
	tb.Helper()
	root := tb.TempDir()
	s := &sessions{stores: map[string]map[string]*artifacts.Store{}}
	for i := 0; i < len(pairs); i += 2 {
		user, id := pairs[i], pairs[i+1]
		dir := filepath.Join(root, id)
		if err := os.Mkdir(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		st, err := artifacts.Open(dir, artifacts.Limits{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		if s.stores[user] == nil {
			s.stores[user] = map[string]*artifacts.Store{}
		}
		s.stores[user][id] = st
	}
	return s, root
}

// conn is one side of an in-memory sftp connection.
type conn struct {
	io.Reader
	io.WriteCloser
	stderr bytes.Buffer
	mu     sync.Mutex
}

func (c *conn) Stderr() io.ReadWriter { return lockedWriter{c} }

type lockedWriter struct{ c *conn }

func (w lockedWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w lockedWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return w.c.stderr.Write(p)
}

func (c *conn) errors() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// client serves user's view over pipes and returns a real pkg/sftp client,
// the server side (for its stderr), a cut func that drops the connection
// as a killed client would, and a wait func that returns Serve's error.
type link struct {
	c      *sftp.Client
	server *conn
	cut    func()
	done   chan error
}

func dial(tb testing.TB, s Sessions, user string, opts ...sftp.ClientOption) *link {
	tb.Helper()
	return dialServer(tb, DefaultServer, s, user, opts...)
}

// dialServer is dial to srv.
func dialServer(tb testing.TB, srv *Server, s Sessions, user string, opts ...sftp.ClientOption) *link {
	tb.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	server := &conn{Reader: c2sR, WriteCloser: s2cW}
	l := &link{server: server, done: make(chan error, 1)}
	go func() { l.done <- srv.Serve(server, s, user) }()
	c, err := sftp.NewClientPipe(s2cR, c2sW, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	l.c = c
	l.cut = func() {
		c2sW.CloseWithError(errors.New("connection reset by peer"))
		s2cR.CloseWithError(errors.New("connection reset by peer"))
	}
	tb.Cleanup(func() {
		c.Close()
		l.cut()
		<-l.done
	})
	return l
}

func put(tb testing.TB, c *sftp.Client, p string, data []byte) error {
	tb.Helper()
	f, err := c.Create(p)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func tgz(tb testing.TB, files map[string]string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(files[n]))})
		tw.Write([]byte(files[n]))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// tree lists the paths below dir with sizes, to compare before and after.
func tree(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			tb.Fatal(err)
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+fi.Mode().String())
		return nil
	})
	return out
}

func names(fis []os.FileInfo) []string {
	var out []string
	for _, fi := range fis {
		out = append(out, fi.Name())
	}
	return out
}

func TestPutListGet(t *testing.T) {
	s, _ := newSessions(t, "alice", "a1", "alice", "a2", "bob", "b1")
	l := dial(t, s, "alice")
	set := tgz(t, map[string]string{"set/a.txt": "A"})
	uploads := map[string][]byte{
		"/a1/classes/src/greet/greet.go": []byte("package greet\n\nfunc Hi() string { return \"hi\" }\n"),
		"/a1/files/data.txt":             []byte("one,two\n"),
		"/a1/archives/set.tar.gz":        set,
	}
	for p, b := range uploads {
		if err := put(t, l.c, p, b); err != nil {
			t.Fatalf("put %s: %v", p, err)
		}
	}
	for p, want := range map[string][]string{
		"/":                        {"a1", "a2"},
		"/a1":                      {"archives", "classes", "files"},
		"/a1/classes":              {"src"},
		"/a1/files":                {"data.txt", "set.tar.gz"},
		"/a1/files/set.tar.gz/set": {"a.txt"},
		"/a2/files":                nil,
	} {
		fis, err := l.c.ReadDir(p)
		if err != nil || !slices.Equal(names(fis), want) {
			t.Errorf("got %v, %v listing %s; want %v", names(fis), err, p, want)
		}
	}
	uploads["/a1/files/set.tar.gz/set/a.txt"] = []byte("A")
	for p, want := range uploads {
		f, err := l.c.Open(p)
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("got %q, %v from %s; want %q", got, err, p, want)
		}
	}
	fi, err := l.c.Stat("/a1/files/data.txt")
	if err != nil || fi.Size() != 8 || fi.IsDir() {
		t.Errorf("got %v, %v; want an 8-byte file", fi, err)
	}
	if fi, err := l.c.Stat("/a1"); err != nil || !fi.IsDir() || fi.Name() != "a1" {
		t.Errorf("got %v, %v; want folder a1", fi, err)
	}
	if got, err := l.c.RealPath("a1/files/../files"); err != nil || got != "/a1/files" {
		t.Errorf("got %q, %v; want /a1/files", got, err)
	}
}

func TestOtherUsersSessionInvisible(t *testing.T) {
	s, root := newSessions(t, "alice", "a1", "bob", "b1")
	l := dial(t, s, "alice")
	before := tree(t, root)
	if _, err := l.c.Stat("/b1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want not exist", err)
	}
	if _, err := l.c.ReadDir("/b1/files"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want not exist", err)
	}
	if err := put(t, l.c, "/b1/files/x", []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want not exist", err)
	}
	if err := l.c.Mkdir("/b1/classes/src/p"); err == nil {
		t.Errorf("got nil; want an error")
	}
	if got := tree(t, root); !slices.Equal(got, before) {
		t.Errorf("got %v; want %v", got, before)
	}
}

func TestHostileNamesRefused(t *testing.T) {
	slip := func() []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: "../../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644})
		tw.Write([]byte("x"))
		tw.Close()
		return buf.Bytes()
	}()
	tests := []struct {
		name   string
		path   string
		data   []byte
		stderr string // what the user is told on stderr ("" for a plain not-found)
	}{
		{"dot-dot", "/a1/../x", []byte("x"), "only files below"},
		{"absolute-etc", "/etc/x", []byte("x"), ""},
		{"escape-files", "/a1/files/../../x", []byte("x"), "only files below"},
		{"no-kind", "/a1/x", []byte("x"), "must start with classes/src/, files/ or archives/"},
		{"journal", "/a1/classes/repl/0001.go", []byte("x"), "must start with"},
		{"private-tmp", "/a1/.tmp/x", []byte("x"), "must start with"},
		{"session-folder", "/a1", []byte("x"), "only files below"},
		{"root", "/", []byte("x"), "only files below"},
		{"zip-slip-tar", "/a1/archives/slip.tar", slip, "name escapes the archive"},
		{"bad-archive-type", "/a1/archives/x.rar", []byte("x"), "unsupported archive type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, root := newSessions(t, "alice", "a1")
			l := dial(t, s, "alice")
			before := tree(t, root)
			if err := put(t, l.c, tt.path, tt.data); err == nil {
				t.Fatalf("got nil putting %s; want an error", tt.path)
			}
			if got := tree(t, root); !slices.Equal(got, before) {
				t.Errorf("got %v; want %v", got, before)
			}
			if got := l.server.errors(); !strings.Contains(got, tt.stderr) || strings.Count(got, "\n") > 1 {
				t.Errorf("got stderr %q; want one line saying %q", got, tt.stderr)
			}
		})
	}
}

func TestInterruptedPutLeavesNothing(t *testing.T) {
	s, root := newSessions(t, "alice", "a1")
	l := dial(t, s, "alice")
	before := tree(t, root)
	f, err := l.c.Create("/a1/files/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	l.cut() // the client is killed mid-transfer, the file still open
	if err := <-l.done; err == nil {
		t.Errorf("got nil from Serve; want the connection's error")
	}
	l.done <- nil // for the cleanup
	if got := tree(t, root); !slices.Equal(got, before) {
		t.Errorf("got %v; want %v", got, before)
	}
}

func TestConcurrentWritesOutOfOrder(t *testing.T) {
	s, root := newSessions(t, "alice", "a1")
	l := dial(t, s, "alice", sftp.UseConcurrentWrites(true), sftp.MaxConcurrentRequestsPerFile(64))
	data := make([]byte, 8<<20+17)
	rand.NewChaCha8([32]byte{5}).Read(data)
	f, err := l.c.Create("/a1/files/rand.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "a1/files/rand.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("got %d bytes, %v; want the %d bytes sent", len(got), err, len(data))
	}
	infos, _ := s.stores["alice"]["a1"].List()
	if len(infos) != 1 || infos[0].Size != int64(len(data)) {
		t.Errorf("got %+v; want one file of %d bytes", infos, len(data))
	}
}

func TestOverwriteRules(t *testing.T) {
	s, _ := newSessions(t, "alice", "a1")
	l := dial(t, s, "alice")
	for _, step := range []struct {
		path, data string
		ok         bool
	}{
		{"/a1/files/x", "one", true},
		{"/a1/files/x", "one", true}, // same bytes again
		{"/a1/files/x", "two", false},
		{"/a1/classes/src/p/p.go", "package p // 1", true},
		{"/a1/classes/src/p/p.go", "package p // 2", true},
	} {
		if err := put(t, l.c, step.path, []byte(step.data)); (err == nil) != step.ok {
			t.Errorf("got %v putting %q to %s; want ok=%v", err, step.data, step.path, step.ok)
		}
	}
	if got := l.server.errors(); !strings.Contains(got, "already exists") {
		t.Errorf("got stderr %q; want already exists", got)
	}
}

func TestCommands(t *testing.T) {
	s, root := newSessions(t, "alice", "a1")
	l := dial(t, s, "alice")
	c := l.c
	if err := c.Mkdir("/a1/classes/src/greet"); err != nil {
		t.Fatalf("mkdir: %v", err)
	}
	if err := put(t, c, "/a1/classes/src/greet/greet.go", []byte("package greet")); err != nil {
		t.Fatal(err)
	}
	put(t, c, "/a1/files/d.txt", []byte("d"))
	put(t, c, "/a1/archives/s.tgz#s", tgz(t, map[string]string{"a": "a"}))
	if _, err := os.Stat(filepath.Join(root, "a1/files/s/a")); err != nil {
		t.Errorf("got %v; want the alias folder files/s", err)
	}
	if err := c.Rename("/a1/files/d.txt", "/a1/files/e.txt"); err == nil {
		t.Errorf("got nil from rename; want it refused")
	}
	if err := c.Chmod("/a1/files/d.txt", 0o600); err != nil {
		t.Errorf("got %v from chmod; want it accepted and ignored", err)
	}
	if err := c.RemoveDirectory("/a1/files/d.txt"); err == nil {
		t.Errorf("got nil from rmdir of a file; want an error")
	}
	for _, p := range []string{"/a1/files/d.txt", "/a1/archives/s.tgz"} {
		if err := c.Remove(p); err != nil {
			t.Errorf("got %v removing %s; want nil", err, p)
		}
	}
	if err := c.RemoveDirectory("/a1/classes/src/greet"); err != nil {
		t.Errorf("got %v from rmdir; want nil", err)
	}
	if err := c.Symlink("/etc/passwd", "/a1/files/pw"); err == nil {
		t.Errorf("got nil from symlink; want it refused")
	}
	infos, _ := s.stores["alice"]["a1"].List()
	if len(infos) != 0 {
		t.Errorf("got %+v; want nothing left", infos)
	}
	if _, err := os.Stat(filepath.Join(root, "a1/files/s")); !os.IsNotExist(err) {
		t.Errorf("got %v; want the unpacked folder gone with its archive", err)
	}
}
