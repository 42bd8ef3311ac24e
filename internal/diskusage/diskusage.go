// Package diskusage measures what a session's directory tree holds on disk:
// allocated bytes (st_blocks, so a sparse file counts for what it uses, not
// for its apparent size) and inodes. It is the one rule both the upload
// check and the worker's quota watcher count by.
//
// The tree is walked through an os.Root and never follows a symlink, so a
// session cannot make the host count (or stat) anything outside it.
package diskusage

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Usage is what a tree holds.
type Usage struct {
	Bytes  int64 // allocated bytes, st_blocks * 512
	Inodes int64 // files, directories, links and anything else, the root included
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage { return Usage{u.Bytes + v.Bytes, u.Inodes + v.Inodes} }

// Over reports whether u passes a limit of bytes or inodes; a limit <= 0 is none.
func (u Usage) Over(bytes, inodes int64) bool {
	return (bytes > 0 && u.Bytes > bytes) || (inodes > 0 && u.Inodes > inodes)
}

// BytesPerInode is the quota's price of an inode: a session may hold one
// file, folder or link per 4 KiB of its byte quota (at least 1024), so that
// empty files cannot take the disk's inodes. The worker's quota watcher
// (sandbox) and the upload check (artifacts) both count by it.
const BytesPerInode = 4 << 10

// InodesFor is the inode cap that goes with a byte cap.
func InodesFor(bytes int64) int64 { return max(bytes/BytesPerInode, 1024) }

// ErrTooMany is returned when a walk meets more entries than its bound.
var ErrTooMany = errors.New("diskusage: too many entries")

// Of measures dir (a path inside root, "." for the root itself), counting at
// most maxEntries entries (<= 0: no bound) before it stops with ErrTooMany
// and the usage counted so far. A missing dir is zero usage. Entries that
// vanish during the walk are skipped: the tree belongs to a running session.
func Of(root *os.Root, dir string, maxEntries int64) (Usage, error) {
	return OfExcept(root, dir, maxEntries, "")
}

// OfExcept is Of leaving out the subtree skip (a slash path inside root, as
// fs.WalkDir names it; "" leaves out nothing). The artifact store leaves
// out its uploads in progress, which it counts by what they reserve.
func OfExcept(root *os.Root, dir string, maxEntries int64, skip string) (Usage, error) {
	var u Usage
	err := fs.WalkDir(root.FS(), dir, func(path string, d fs.DirEntry, err error) error {
		if skip != "" && path == skip {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		u.Inodes++
		if maxEntries > 0 && u.Inodes > maxEntries {
			return ErrTooMany
		}
		info, err := d.Info() // lstat: WalkDir does not follow links
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			u.Bytes += st.Blocks * 512
		} else {
			u.Bytes += info.Size()
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return u, err
}
