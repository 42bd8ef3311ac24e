package sftpd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/artifacts"
)

// locate splits an sftp path into a session id and a path in that session's
// view: "/" is ("", ""), "/ID" is ("ID", "."), "/ID/files/x" is ("ID", "files/x").
func locate(p string) (id, rel string) {
	p = path.Clean("/" + p)
	if p == "/" {
		return "", ""
	}
	id, rel, _ = strings.Cut(p[1:], "/")
	if rel == "" {
		rel = "."
	}
	return id, rel
}

// session returns the store of an own session, or the connection to the
// host that holds it (a cluster), or a not-found error for any other id
// (another user's session looks the same as none).
func (h *handler) session(op, p, id string) (*artifacts.Store, *remote, error) {
	if r := h.cached(id); r != nil {
		return nil, r, nil
	}
	if slices.Contains(h.s.List(h.user), id) {
		st, err := h.s.Store(h.user, id)
		if err == nil {
			return st, nil, nil
		}
		if r, err := h.elsewhere(op, p, id, err); r != nil || err != nil {
			return nil, r, err
		}
	}
	return nil, nil, &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
}

// target resolves p to the store (or the other host) and path of an
// artifact (not "/" and not a session's own folder).
func (h *handler) target(op, p string) (*artifacts.Store, *remote, string, error) {
	id, rel := locate(p)
	if id == "" || rel == "." {
		return nil, nil, "", h.refuse(op, p, errors.New("sftpd: "+op+" "+p+": only files below /SESSION/classes/src/, files/ and archives/ can change"), sftp.ErrSSHFxPermissionDenied)
	}
	st, r, err := h.session(op, p, id)
	return st, r, rel, err
}

// coded carries an sftp status code along with the error's own message.
type coded struct {
	err  error
	code error
}

func (e *coded) Error() string   { return e.err.Error() }
func (e *coded) Unwrap() []error { return []error{e.err, e.code} }

// refuse reports err and returns it with the sftp status code.
func (h *handler) refuse(op, p string, err, code error) error {
	h.report(err)
	return &coded{err: err, code: code}
}

// status turns a store error into what the sftp client should get: a
// not-found for ErrNotFound (clients probe paths), the store's one-line
// message (also reported on stderr) for a refusal.
func (h *handler) status(op, p string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, artifacts.ErrNotFound):
		return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
	case errors.Is(err, artifacts.ErrBadName):
		return h.refuse(op, p, err, sftp.ErrSSHFxPermissionDenied)
	}
	return h.refuse(op, p, err, sftp.ErrSSHFxFailure)
}

// Fileread opens a file of a session for reading.
func (h *handler) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	id, rel := locate(r.Filepath)
	if id == "" {
		return nil, &fs.PathError{Op: "open", Path: r.Filepath, Err: errors.New("is a directory")}
	}
	st, rm, err := h.session("open", r.Filepath, id)
	if err != nil {
		return nil, err
	}
	if rm != nil {
		return h.remoteRead(rm, id, r.Filepath)
	}
	release, err := h.takeHandle("open", r.Filepath, true)
	if err != nil {
		return nil, err
	}
	f, err := st.Open(rel)
	if err != nil {
		release()
		return nil, h.status("open", r.Filepath, err)
	}
	return &reader{f: f, release: release}, nil
}

// reader is an sftp read handle on a file; Close gives its counts back.
type reader struct {
	f       *os.File
	release func()
}

func (r *reader) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }

func (r *reader) Close() error {
	defer r.release()
	return r.f.Close()
}

// takeHandle counts a new handle of the connection and, if it holds a host
// descriptor (fd), one of the user's, or refuses past either cap with a
// status that says which. The func returned gives them back; it may be
// called more than once.
func (h *handler) takeHandle(op, p string, fd bool) (func(), error) {
	h.mu.Lock()
	full := h.handles >= h.lim.MaxHandles
	if !full {
		h.handles++
	}
	h.mu.Unlock()
	if full {
		return nil, h.refuse(op, p, fmt.Errorf("sftpd: %s %s: too many open handles: at most %d per connection; close some first", op, p, h.lim.MaxHandles), sftp.ErrSSHFxFailure)
	}
	drop := func() {
		h.mu.Lock()
		h.handles--
		h.mu.Unlock()
	}
	if fd && !h.srv.takeFile(h.user) {
		drop()
		return nil, h.refuse(op, p, fmt.Errorf("sftpd: %s %s: too many open files for user %s: at most %d across all connections; close some first", op, p, h.user, h.lim.MaxUserFiles), sftp.ErrSSHFxFailure)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			drop()
			if fd {
				h.srv.dropFile(h.user)
			}
		})
	}, nil
}

// Filewrite starts an upload. Writes land in the store's private temporary
// file, at any offset and in any order; Close commits (verify, rename,
// unpack), and a transfer cut off aborts, leaving nothing.
func (h *handler) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	st, rm, rel, err := h.target("open", r.Filepath)
	if err != nil {
		return nil, err
	}
	flags := r.Pflags()
	if flags.Append {
		return nil, h.refuse("open", r.Filepath, errors.New("sftpd: "+r.Filepath+": appending (resuming) is not supported; upload the whole file"), sftp.ErrSSHFxOpUnsupported)
	}
	if rm != nil {
		id, _ := locate(r.Filepath)
		return h.remoteWrite(rm, id, r.Filepath, flags.Excl)
	}
	if flags.Excl {
		if _, err := st.Lstat(rel); err == nil {
			return nil, &fs.PathError{Op: "open", Path: r.Filepath, Err: fs.ErrExist}
		}
	}
	release, err := h.takeHandle("open", r.Filepath, true)
	if err != nil {
		return nil, err
	}
	u, err := st.Create(rel)
	if err != nil {
		release()
		return nil, h.status("open", r.Filepath, err)
	}
	h.opened(r.Filepath, 1)
	return &upload{h: h, path: r.Filepath, u: u, release: release}, nil
}

// opened counts the uploads in progress to p up (d = 1) or down (-1).
func (h *handler) opened(p string, d int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[p] += d; h.open[p] <= 0 {
		delete(h.open, p)
	}
}

// uploading reports whether an upload to p is in progress.
func (h *handler) uploading(p string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open[p] > 0
}

// upload is an sftp write handle on an artifacts.Upload.
type upload struct {
	h       *handler
	path    string
	u       *artifacts.Upload
	release func()    // gives back the handle's counts
	once    sync.Once // ends the handle's count in h.open
	failed  sync.Once // the upload's failure is reported once, not per write
}

// status is h.status, with the upload's failure reported only once: a
// client has many writes in flight, and each of them fails the same way.
func (w *upload) status(op string, err error) error {
	first := false
	w.failed.Do(func() { first = true })
	if first {
		return w.h.status(op, w.path, err)
	}
	return &coded{err: err, code: sftp.ErrSSHFxFailure}
}

func (w *upload) closed() {
	w.once.Do(func() {
		w.h.opened(w.path, -1)
		w.release()
	})
}

func (w *upload) WriteAt(p []byte, off int64) (int, error) {
	n, err := w.u.WriteAt(p, off)
	if err != nil {
		return n, w.status("write", err)
	}
	return n, nil
}

// Close commits the upload: this is where a refused archive or an
// existing file with other bytes is reported.
func (w *upload) Close() error {
	defer w.closed()
	_, err := w.u.Commit("")
	if err == nil || errors.Is(err, artifacts.ErrClosed) {
		return err // aborted already: the client is gone
	}
	return w.status("close", err)
}

// TransferError is called when the connection ends with the file still
// open: the upload was cut off, so nothing of it may stay.
func (w *upload) TransferError(error) {
	w.u.Abort()
	w.closed()
}

// Filecmd handles the commands that change things.
func (h *handler) Filecmd(r *sftp.Request) error {
	switch r.Method {
	case "Setstat":
		// Modes and times are not kept; accept them so that scp -p and
		// sftp put -p work, but only on what exists. An fsetstat arrives
		// here too, with the path of its handle: scp sends one on every
		// upload before closing it, while the artifact is not visible yet.
		if h.uploading(r.Filepath) {
			return nil
		}
		_, err := h.stat(r.Filepath, false)
		return err
	case "Rename", "PosixRename":
		return h.refuse("rename", r.Filepath, errors.New("sftpd: rename is not supported: upload under the final name"), sftp.ErrSSHFxOpUnsupported)
	case "Link", "Symlink":
		return h.refuse(strings.ToLower(r.Method), r.Filepath, errors.New("sftpd: links are not supported"), sftp.ErrSSHFxOpUnsupported)
	}
	op := strings.ToLower(r.Method)
	st, rm, rel, err := h.target(op, r.Filepath)
	if err != nil {
		return err
	}
	if rm != nil {
		return h.remoteCmd(rm, r.Method, r.Filepath)
	}
	switch r.Method {
	case "Mkdir":
		err := st.Mkdir(rel)
		if errors.Is(err, artifacts.ErrExists) {
			if fi, serr := st.Lstat(rel); serr == nil && fi.IsDir() {
				// Not worth a line on stderr: scp -r and sftp put -r
				// mkdir every folder and go on when it is one already.
				return &fs.PathError{Op: op, Path: r.Filepath, Err: fs.ErrExist}
			}
		}
		return h.status(op, r.Filepath, err)
	case "Remove", "Rmdir":
		fi, err := st.Lstat(rel)
		if err != nil {
			return h.status(op, r.Filepath, err)
		}
		if fi.IsDir() != (r.Method == "Rmdir") {
			return h.refuse(op, r.Filepath, wrongKind(r.Filepath, fi.IsDir()), sftp.ErrSSHFxFailure)
		}
		return h.status(op, r.Filepath, st.Remove(rel))
	}
	return sftp.ErrSSHFxOpUnsupported
}

// wrongKind is the refusal of rm on a folder, or rmdir on a file.
func wrongKind(p string, isDir bool) error {
	if isDir {
		return errors.New("sftpd: " + p + " is a folder: use rmdir")
	}
	return errors.New("sftpd: " + p + " is not a folder: use rm")
}

// Filelist handles List, Stat and Readlink (via Readlink below).
func (h *handler) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	switch r.Method {
	case "List":
		release, err := h.takeHandle("opendir", r.Filepath, false)
		if err != nil {
			return nil, err
		}
		fis, err := h.list(r.Filepath)
		if err != nil {
			release()
			return nil, err
		}
		return &dirHandle{lister: fis, release: release}, nil
	case "Stat":
		fi, err := h.stat(r.Filepath, true)
		return lister{fi}, err
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// Lstat is Stat that does not follow a final symlink.
func (h *handler) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	fi, err := h.stat(r.Filepath, false)
	return lister{fi}, err
}

// Readlink returns a symlink's target (symlinks come from archives).
func (h *handler) Readlink(p string) (string, error) {
	id, rel := locate(p)
	st, rm, err := h.session("readlink", p, id)
	if err != nil {
		return "", err
	}
	if rm != nil {
		t, err := rm.c.ReadLink(p)
		return t, h.fromRemote(id, rm, err)
	}
	t, err := st.Readlink(rel)
	return t, h.status("readlink", p, err)
}

func (h *handler) stat(p string, follow bool) (os.FileInfo, error) {
	id, rel := locate(p)
	if id == "" {
		return dirInfo{name: "/", mtime: h.start}, nil
	}
	st, rm, err := h.session("stat", p, id)
	if err != nil {
		return nil, err
	}
	if rm != nil {
		return h.remoteStat(rm, id, p, follow)
	}
	var fi os.FileInfo
	if follow {
		fi, err = st.Stat(rel)
	} else {
		fi, err = st.Lstat(rel)
	}
	if err != nil {
		return nil, h.status("stat", p, err)
	}
	if rel == "." {
		fi = renamed{fi, id}
	}
	return fi, nil
}

func (h *handler) list(p string) ([]os.FileInfo, error) {
	id, rel := locate(p)
	if id != "" {
		st, rm, err := h.session("opendir", p, id)
		if err != nil {
			return nil, err
		}
		if rm != nil {
			fis, err := rm.c.ReadDir(p)
			return fis, h.fromRemote(id, rm, err)
		}
		fis, err := st.ReadDir(rel)
		return fis, h.status("opendir", p, err)
	}
	ids := slices.Clone(h.s.List(h.user))
	sort.Strings(ids)
	var fis []os.FileInfo
	for _, id := range ids {
		st, err := h.s.Store(h.user, id)
		if err == nil {
			if fi, err := st.Stat("."); err == nil {
				fis = append(fis, renamed{fi, id})
			}
			continue
		}
		// Another host's session: its folder as that host shows it.
		if rm, _ := h.elsewhere("opendir", "/"+id, id, err); rm != nil {
			if fi, err := h.remoteStat(rm, id, "/"+id, true); err == nil {
				fis = append(fis, renamed{fi, id})
			}
		}
	}
	return fis, nil
}
