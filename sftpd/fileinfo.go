package sftpd

import (
	"io"
	"io/fs"
	"os"
	"time"
)

// lister serves a fixed list of entries to the request server.
type lister []os.FileInfo

func (l lister) ListAt(out []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(out, l[off:])
	if n < len(out) {
		return n, io.EOF
	}
	return n, nil
}

// dirHandle is an open folder: its entries, read when it was opened (it
// holds no descriptor), and the handle's count to give back at Close.
type dirHandle struct {
	lister
	release func()
}

func (d *dirHandle) Close() error {
	d.release()
	return nil
}

// renamed shows a session directory under its id.
type renamed struct {
	os.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

// dirInfo is the synthetic "/" of the view.
type dirInfo struct {
	name  string
	mtime time.Time
}

func (d dirInfo) Name() string       { return d.name }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return d.mtime }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }
