package sftpd

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/artifacts"
)

var errHeldElsewhere = errors.New("held by another host")

// twoHosts is the Sessions of a host whose user also has sessions that
// another host holds (far), served there by a Server of its own over pipes,
// as a cluster's internal connection carries them.
type twoHosts struct {
	*sessions
	far    *sessions
	remote *Server

	mu     sync.Mutex
	dials  int
	served []chan error // the other host's Serve results, one per Dial
}

func (t *twoHosts) List(user string) []string {
	return append(t.sessions.List(user), t.far.List(user)...)
}

func (t *twoHosts) Store(user, id string) (*artifacts.Store, error) {
	if slices.Contains(t.far.List(user), id) {
		return nil, errHeldElsewhere
	}
	return t.sessions.Store(user, id)
}

func (t *twoHosts) Elsewhere(user, id string, err error) (string, bool) {
	return "far:22", errors.Is(err, errHeldElsewhere)
}

func (t *twoHosts) Dial(user, host string) (*Remote, error) {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	errR, errW := io.Pipe()
	server := &pipeConn{Reader: c2sR, WriteCloser: s2cW, stderr: errW}
	done := make(chan error, 1)
	go func() {
		done <- t.remote.Serve(server, t.far, user)
		errW.Close()
	}()
	c, err := sftp.NewClientPipe(s2cR, c2sW)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.dials++
	t.served = append(t.served, done)
	t.mu.Unlock()
	return &Remote{Client: c, Stderr: errR, Close: func() {
		// What a closed SSH channel does to the other host: its reads end.
		c2sW.CloseWithError(errors.New("channel closed"))
		s2cR.CloseWithError(errors.New("channel closed"))
		c.Close()
	}}, nil
}

// waitServed waits until every connection to the other host has ended there.
func (t *twoHosts) waitServed() {
	t.mu.Lock()
	served := slices.Clone(t.served)
	t.mu.Unlock()
	for _, ch := range served {
		<-ch
	}
}

// pipeConn is the other host's end of a pipe connection, its stderr a pipe.
type pipeConn struct {
	io.Reader
	io.WriteCloser
	stderr *io.PipeWriter
}

func (c *pipeConn) Stderr() io.ReadWriter {
	return struct {
		io.Reader
		io.Writer
	}{strings.NewReader(""), c.stderr}
}

func newTwoHosts(tb testing.TB) (s *twoHosts, nearRoot, farRoot string) {
	tb.Helper()
	near, nearRoot := newSessions(tb, "alice", "a1")
	far, farRoot := newSessions(tb, "alice", "f1", "bob", "b1")
	return &twoHosts{sessions: near, far: far, remote: &Server{}}, nearRoot, farRoot
}

// A session another host holds is listed, read, written, made folders in
// and removed from through this one, with the other host's store doing
// the work, and its refusals reaching this connection's stderr.
func TestSessionOfAnotherHost(t *testing.T) {
	s, nearRoot, farRoot := newTwoHosts(t)
	l := dial(t, s, "alice")
	fis, err := l.c.ReadDir("/")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(fis); !slices.Equal(got, []string{"a1", "f1"}) {
		t.Errorf("ls /: got %v; want [a1 f1]", got)
	}
	if err := put(t, l.c, "/f1/files/far.txt", []byte("far away")); err != nil {
		t.Fatalf("put to the other host: %v", err)
	}
	if err := put(t, l.c, "/a1/files/near.txt", []byte("near")); err != nil {
		t.Fatalf("put here: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(farRoot, "f1", "files", "far.txt")); err != nil || string(b) != "far away" {
		t.Errorf("the other host's root has %q, %v; want far away", b, err)
	}
	if _, err := os.Stat(filepath.Join(nearRoot, "a1", "files", "far.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the upload landed here too: %v", err)
	}
	f, err := l.c.Open("/f1/files/far.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(b) != "far away" {
		t.Errorf("get: %q, %v; want far away", b, err)
	}
	if fis, err := l.c.ReadDir("/f1/files"); err != nil || !slices.Equal(names(fis), []string{"far.txt"}) {
		t.Errorf("ls /f1/files: %v, %v; want [far.txt]", names(fis), err)
	}
	if err := l.c.Mkdir("/f1/files/sub"); err != nil {
		t.Errorf("mkdir there: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(farRoot, "f1", "files", "sub")); err != nil || !fi.IsDir() {
		t.Errorf("the folder made there: %v", err)
	}
	if err := l.c.RemoveDirectory("/f1/files/sub"); err != nil {
		t.Errorf("rmdir there: %v", err)
	}
	if err := l.c.Remove("/f1/files/far.txt"); err != nil {
		t.Errorf("rm there: %v", err)
	}
	if _, err := l.c.Stat("/f1/files/far.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat after rm: %v; want not exist", err)
	}
	// Refused there: the status comes back, the line reaches stderr here,
	// and nothing is left there.
	if err := put(t, l.c, "/f1/archives/x.rar", []byte("x")); err == nil {
		t.Errorf("an archive of an unknown type: nil; want a refusal")
	}
	// Another user's session there is not alice's, as here.
	if _, err := l.c.Stat("/b1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat /b1 (bob's): %v; want not exist", err)
	}
	l.c.Close()
	<-l.done
	l.done <- nil
	s.waitServed()
	if got := l.server.errors(); !strings.Contains(got, "unsupported archive type") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr here: %q; want one line, the other host's refusal of x.rar", got)
	}
	if s.dials != 1 {
		t.Errorf("%d connections to the other host; want 1 for the whole connection", s.dials)
	}
}

// An upload to another host's session cut off half-way (the client killed,
// the file open) is aborted there, never committed.
func TestCutUploadToAnotherHostLeavesNothing(t *testing.T) {
	s, _, farRoot := newTwoHosts(t)
	l := dial(t, s, "alice")
	before := tree(t, farRoot)
	f, err := l.c.Create("/f1/files/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	l.cut()
	<-l.done
	l.done <- nil
	s.waitServed()
	if got := tree(t, farRoot); !slices.Equal(got, before) {
		t.Errorf("the other host's root: got %v; want %v", got, before)
	}
}
