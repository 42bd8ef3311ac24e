// Package safefs opens files that a session's own code may have written as
// hostile input: through an os.Root of the directory they belong in (no
// symlink leaves it), only a regular file where one is expected (a FIFO
// would block the host, a device such as /dev/zero never ends), its size
// checked before reading and the read bounded after (the file may grow
// meanwhile). The repl (journal, session.json, :load) and the artifact
// store (records, sums, sftp reads) both read by this one rule.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular refuses a symlink, device, FIFO or directory where the host
// expects a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens name in root with flag (O_RDONLY, O_WRONLY or O_RDWR, plus
// O_APPEND) if it is a regular file of at most max bytes (max <= 0: any
// size), and returns it with its FileInfo. A symlink is refused, not
// followed, even one that stays inside root (os.Root follows those, even
// with O_NOFOLLOW): the name is Lstat'ed first and the file opened checked
// to be the one stat'ed, so a swap in between is refused too. O_NONBLOCK: a
// FIFO swapped in does not block the open.
func Open(root *os.Root, name string, flag int, max int64) (*os.File, fs.FileInfo, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, Kind(fi.Mode()))
	}
	if max > 0 && fi.Size() > max {
		return nil, nil, fmt.Errorf("%s: %s, larger than %s", name, Size(fi.Size()), Size(max))
	}
	f, err := root.OpenFile(name, flag|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (replaced while opened)", name, ErrNotRegular)
	}
	if max > 0 && got.Size() > max {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %s, larger than %s", name, Size(got.Size()), Size(max))
	}
	return f, got, nil
}

// Read reads name in root: a regular file of at most max bytes.
func Read(root *os.Root, name string, max int64) ([]byte, error) {
	f, fi, err := Open(root, name, os.O_RDONLY, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadBounded(f, name, fi.Size(), max)
}

// ReadBounded reads f, which had size bytes when opened, refusing more
// than max however much it grew since.
func ReadBounded(f io.Reader, name string, size, max int64) ([]byte, error) {
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
	return nil, fmt.Errorf("%s: larger than %s", name, Size(max))
}

// Kind names a file type for an error message.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a fifo"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Size shows n bytes for an error message.
func Size(n int64) string {
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
