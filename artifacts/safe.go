package artifacts

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Everything under the session directory may have been written by the
// session's own code, so the host opens it as hostile: through the os.Root
// (no link leaves the session), regular files only (a fifo would block the
// host, a device node such as /dev/zero would never end), sizes checked
// before reading.

// openRegular opens p for reading and fails unless it is a regular file.
// O_NONBLOCK makes opening a fifo return at once instead of waiting for a
// writer; on a regular file it changes nothing.
func openRegular(root *os.Root, p string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", p, typeName(fi.Mode()))
	}
	return f, fi, nil
}

// readSmall reads the regular file p, at most max bytes: a larger one (an
// 8 GiB sparse file, say) is an error before anything is read.
func readSmall(root *os.Root, p string, max int64) ([]byte, error) {
	f, fi, err := openRegular(root, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes; at most %d expected", p, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1)) // it may grow while we read
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes", p, max)
	}
	return b, nil
}

// typeName names a file type for an error message.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a fifo"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
