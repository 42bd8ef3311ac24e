package repl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Everything under ROOT/<uuid>/ may have been written by the session's own
// code, so the host reads it as hostile input: through an os.Root of the
// directory it belongs in (no symlink leaves it), only a regular file where
// one is expected, its size checked before reading and the read bounded
// after (the file may grow meanwhile).

// ErrNotRegular refuses a symlink, device, FIFO or directory where the host
// expects a regular file it wrote.
var ErrNotRegular = errors.New("not a regular file")

// readRegular reads name in root: a regular file (a symlink is refused, not
// followed) of at most max bytes.
func readRegular(root *os.Root, name string, max int64) ([]byte, error) {
	f, size, err := openRegular(root, name, os.O_RDONLY, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, name, size, max)
}

// readBounded reads f, which had size bytes when opened, refusing more
// than max however much it grew since.
func readBounded(f io.Reader, name string, size, max int64) ([]byte, error) {
	b := make([]byte, 0, min(size, max)+1)
	for int64(len(b)) <= max {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(int64(cap(b)), max+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
	return nil, fmt.Errorf("%s: larger than %s", name, byteSize(max))
}

// openRegular opens name in root with flag (O_RDONLY or O_WRONLY, plus
// O_APPEND) if it is a regular file of at most max bytes, and returns it
// with its size. The file opened is checked to be the one stat'ed, so a
// swap for a symlink or a FIFO in between is refused too (O_NONBLOCK: a
// FIFO swapped in does not block the open).
func openRegular(root *os.Root, name string, flag int, max int64) (*os.File, int64, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, 0, fmt.Errorf("%s: %s, larger than %s", name, byteSize(fi.Size()), byteSize(max))
	}
	f, err := root.OpenFile(name, flag|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, 0, err
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w (replaced while opened)", name, ErrNotRegular)
	}
	if got.Size() > max {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %s, larger than %s", name, byteSize(got.Size()), byteSize(max))
	}
	return f, got.Size(), nil
}

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
			return nil, fmt.Errorf("%s: not a directory (%s)", p, fileKind(fi.Mode()))
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

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// byteSize shows n bytes for an error message.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
