package repl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Everything under ROOT/<uuid>/ may have been written by the session's own
// code, so the host reads it as hostile input, by internal/safefs's rule.

// openSubdir opens the directory name below root as a root of its own,
// refusing a symlink in its place (at any step) rather than following it
// inside the session.
func openSubdir(root *os.Root, name string) (*os.Root, error) {
	p := ""
	var last fs.FileInfo
	for _, part := range splitPath(name) {
		p = path.Join(p, part)
		fi, err := root.Lstat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (%s)", p, safefs.Kind(fi.Mode()))
		}
		last = fi
	}
	sub, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	got, err := sub.Stat(".")
	if err != nil || !os.SameFile(last, got) {
		sub.Close()
		return nil, fmt.Errorf("%s: replaced while opened", name)
	}
	return sub, nil
}

func splitPath(name string) []string {
	var parts []string
	for name != "" && name != "." {
		dir, file := path.Split(name)
		parts = append([]string{file}, parts...)
		name = path.Clean(dir)
		if name == "/" {
			break
		}
	}
	return parts
}

// writeRootAtomic writes name in root through a temporary file renamed over
// it, so a crash leaves the old file or the new one; the temporary file is
// created exclusively (never through a link someone planted).
func writeRootAtomic(root *os.Root, name string, data []byte, level syncLevel) error {
	tmp := tempName(name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if level >= syncFile {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("sync %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	if level >= syncAll {
		return syncRootDir(root, path.Dir(name))
	}
	return nil
}

// tempName is a fresh temporary name beside name.
func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	return path.Join(path.Dir(name), tempPrefix+path.Base(name)+"-"+hex.EncodeToString(b[:]))
}

// syncRootDir fsyncs the directory dir of root (a rename into it).
func syncRootDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeRootTemps removes the temporary files a crash left in dir of root.
// Remove unlinks a link itself, never what it points to.
func removeRootTemps(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(maxDirEntries + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for _, n := range names {
		if len(n) > len(tempPrefix) && n[:len(tempPrefix)] == tempPrefix {
			if err := root.Remove(path.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// maxDirEntries bounds how many entries the host reads of a directory the
// session can fill (classes/repl/, the session directory).
const maxDirEntries = 100_000
