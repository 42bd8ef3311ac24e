package sftpd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/pkg/sftp"
)

// A session another host holds (a cluster) is served by that host: the
// requests for it are carried there over a Remote, under the same path,
// and that host applies the same checks and writes through the session's
// own store. Nothing of it is read or written here, so the fencing of the
// cluster (one host writes a session) holds for sftp too.

// remote is one connection of this handler to another host's view.
type remote struct {
	host string
	c    *sftp.Client
	stop func()
	once sync.Once
	dead chan struct{} // closed when the connection ended
}

func (r *remote) close() {
	r.once.Do(r.stop)
}

// gone reports whether the connection to the host ended.
func (r *remote) gone() bool {
	select {
	case <-r.dead:
		return true
	default:
		return false
	}
}

// elsewhere is the connection to the host holding session id when Store
// failed with storeErr because another host holds it; nil, nil when the
// session is not another host's.
func (h *handler) elsewhere(op, p, id string, storeErr error) (*remote, error) {
	host, ok := h.s.Elsewhere(h.user, id, storeErr)
	if !ok {
		return nil, nil
	}
	r, err := h.connect(host)
	if err != nil {
		return nil, h.refuse(op, p, fmt.Errorf("sftpd: %s %s: the host holding this session cannot be reached (%v); try again", op, p, err), sftp.ErrSSHFxFailure)
	}
	h.rmu.Lock()
	if h.sessions == nil {
		h.sessions = map[string]*remote{}
	}
	h.sessions[id] = r
	h.rmu.Unlock()
	return r, nil
}

// cached is the host last found for session id, if its connection lives:
// no question to the Sessions for each request.
func (h *handler) cached(id string) *remote {
	h.rmu.Lock()
	defer h.rmu.Unlock()
	if r := h.sessions[id]; r != nil && !r.gone() {
		return r
	}
	return nil
}

// forget drops what was found of session id after a request for it
// failed there: it may have moved (a drain, a failover), so the next
// request asks again.
func (h *handler) forget(id string, r *remote) {
	h.rmu.Lock()
	defer h.rmu.Unlock()
	if h.sessions[id] == r {
		delete(h.sessions, id)
	}
}

// connect is this connection's view on host, dialled on first use.
func (h *handler) connect(host string) (*remote, error) {
	h.rmu.Lock()
	if r := h.hosts[host]; r != nil && !r.gone() {
		h.rmu.Unlock()
		return r, nil
	}
	h.rmu.Unlock()
	rm, err := h.s.Dial(h.user, host)
	if err != nil {
		return nil, err
	}
	r := &remote{host: host, c: rm.Client, stop: rm.Close, dead: make(chan struct{})}
	go func() {
		rm.Client.Wait()
		close(r.dead)
	}()
	if rm.Stderr != nil {
		h.passing.Add(1)
		go func() {
			defer h.passing.Done()
			h.passErrors(rm.Stderr)
		}()
	}
	h.rmu.Lock()
	defer h.rmu.Unlock()
	if old := h.hosts[host]; old != nil && !old.gone() {
		r.close() // another request dialled meanwhile: keep one
		return old, nil
	}
	if h.hosts == nil {
		h.hosts = map[string]*remote{}
	}
	h.hosts[host] = r
	return r, nil
}

// passErrors passes the other host's refusal lines on, one line a write,
// so that they never interleave with this host's. A line is bounded by
// the scanner's buffer (64 KiB); a longer one ends the copy.
func (h *handler) passErrors(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		h.report(errors.New(sc.Text()))
	}
}

// closeRemotes ends every connection to another host (the client left),
// and waits until their refusal lines have all been passed on.
func (h *handler) closeRemotes() {
	defer h.passing.Wait() // each Stderr ends with its connection
	h.rmu.Lock()
	hosts := h.hosts
	h.hosts, h.sessions = nil, nil
	h.rmu.Unlock()
	for _, r := range hosts {
		r.close()
	}
}

// fromRemote is err of a request carried to another host, as this host
// returns it: the same status code; the text went to stderr already (the
// other host reported it there).
func (h *handler) fromRemote(id string, r *remote, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) || r.gone() {
		h.forget(id, r)
	}
	var se *sftp.StatusError
	if errors.As(err, &se) {
		return &coded{err: err, code: se.FxCode()}
	}
	if r.gone() {
		return &coded{err: fmt.Errorf("sftpd: the host holding this session went away (%v); try again", err), code: sftp.ErrSSHFxFailure}
	}
	return err // a not-found or permission error: the request server codes it
}

// remoteStat is stat on the host holding the session.
func (h *handler) remoteStat(r *remote, id, p string, follow bool) (os.FileInfo, error) {
	var fi os.FileInfo
	var err error
	if follow {
		fi, err = r.c.Stat(p)
	} else {
		fi, err = r.c.Lstat(p)
	}
	return fi, h.fromRemote(id, r, err)
}

// remoteRead opens a file for reading on the host holding the session.
func (h *handler) remoteRead(r *remote, id, p string) (io.ReaderAt, error) {
	release, err := h.takeHandle("open", p, false) // no descriptor here
	if err != nil {
		return nil, err
	}
	f, err := r.c.Open(p)
	if err != nil {
		release()
		return nil, h.fromRemote(id, r, err)
	}
	return &remoteFile{h: h, id: id, r: r, f: f, release: release}, nil
}

// remoteWrite starts an upload on the host holding the session; that host
// commits it at Close, or aborts it when the connection is cut.
func (h *handler) remoteWrite(r *remote, id, p string, excl bool) (io.WriterAt, error) {
	release, err := h.takeHandle("open", p, false)
	if err != nil {
		return nil, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if excl {
		flags |= os.O_EXCL
	}
	f, err := r.c.OpenFile(p, flags)
	if err != nil {
		release()
		return nil, h.fromRemote(id, r, err)
	}
	h.opened(p, 1)
	return &remoteFile{h: h, id: id, r: r, f: f, path: p, upload: true, release: release}, nil
}

// remoteFile is a read or write handle on another host's file.
type remoteFile struct {
	h       *handler
	id      string
	r       *remote
	f       *sftp.File
	path    string
	upload  bool
	release func()
	once    sync.Once
	cut     bool // TransferError came: never commit
}

func (f *remoteFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if errors.Is(err, io.EOF) {
		return n, err
	}
	return n, f.h.fromRemote(f.id, f.r, err)
}

func (f *remoteFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.f.WriteAt(p, off)
	return n, f.h.fromRemote(f.id, f.r, err)
}

// Close commits an upload there (the other host verifies and renames).
func (f *remoteFile) Close() error {
	defer f.closed()
	if f.cut {
		return nil // aborted: the connection to the other host was ended
	}
	return f.h.fromRemote(f.id, f.r, f.f.Close())
}

// TransferError is called when this connection ends with the file open:
// the upload was cut off. Closing the file would commit it there, so the
// connection to that host is ended instead, which aborts it (and every
// other upload of this connection, all cut off alike).
func (f *remoteFile) TransferError(error) {
	f.cut = true
	f.r.close()
}

func (f *remoteFile) closed() {
	f.once.Do(func() {
		if f.upload {
			f.h.opened(f.path, -1)
		}
		f.release()
	})
}

// remoteCmd is Mkdir, Remove or Rmdir on the host holding the session.
// pkg/sftp's client Remove falls back to rmdir, so the kind is checked
// here first, with the refusal this host gives.
func (h *handler) remoteCmd(r *remote, method, p string) error {
	id, _ := locate(p)
	switch method {
	case "Mkdir":
		return h.fromRemote(id, r, r.c.Mkdir(p))
	case "Remove", "Rmdir":
		fi, err := r.c.Lstat(p)
		if err != nil {
			return h.fromRemote(id, r, err)
		}
		if fi.IsDir() != (method == "Rmdir") {
			return h.refuse(strings.ToLower(method), p, wrongKind(p, fi.IsDir()), sftp.ErrSSHFxFailure)
		}
		if method == "Rmdir" {
			return h.fromRemote(id, r, r.c.RemoveDirectory(p))
		}
		return h.fromRemote(id, r, r.c.Remove(p))
	}
	return sftp.ErrSSHFxOpUnsupported
}
