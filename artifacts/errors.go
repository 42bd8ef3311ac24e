package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors, checked with errors.Is. Every error the store returns for
// a named artifact is an *Error whose Err is one of them (or an I/O error).
var (
	ErrBadName    = errors.New("artifacts: bad name")
	ErrExists     = errors.New("artifacts: already exists")
	ErrChecksum   = errors.New("artifacts: sha256 mismatch")
	ErrTooLarge   = errors.New("artifacts: too large")
	ErrNotFound   = errors.New("artifacts: not found")
	ErrBadArchive = errors.New("artifacts: bad archive")
	ErrClosed     = errors.New("artifacts: upload already finished")
)

// Error is the one-line error about one artifact:
// `artifacts: "NAME": what went wrong`.
type Error struct {
	Name string // the name as the caller gave it
	Msg  string // what went wrong, one line
	Err  error  // a sentinel above or the underlying I/O error
}

func (e *Error) Error() string { return fmt.Sprintf("artifacts: %q: %s", e.Name, e.Msg) }

func (e *Error) Unwrap() error { return e.Err }

// Is makes ErrNotFound also match fs.ErrNotExist, so callers that only know
// the io/fs vocabulary (an sftp server, os.IsNotExist-minded code) still work.
func (e *Error) Is(target error) bool {
	return target == fs.ErrNotExist && e.Err == ErrNotFound
}

func errf(name string, sentinel error, format string, args ...any) error {
	return &Error{Name: name, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// ioErr wraps an I/O error of the store about name, keeping it one line.
func ioErr(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Name: name, Msg: "not found", Err: ErrNotFound}
	}
	return &Error{Name: name, Msg: err.Error(), Err: err}
}

// bytesText writes a limit the way a person would: "1 GiB", "512 KiB", "100 bytes".
func bytesText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
