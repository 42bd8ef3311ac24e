package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/traefik/yaegi/interp"
)

// errChdir refuses os.Chdir in-process: the working directory belongs to the
// whole host process, not to one session.
var errChdir = errors.New("os.Chdir is not available in an in-process session (its working directory is its files/)")

// withWorkDir returns exports whose os functions resolve a relative name
// against dir, the session's files/: in-process sessions share the host's
// working directory, so this is how each gets its own. Absolute names are
// left alone: in-process isolation is of names, not a sandbox.
func withWorkDir(exports interp.Exports, dir string) interp.Exports {
	in := func(name string) string {
		if name == "" || filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(dir, name)
	}
	over := map[string]any{
		"Open":      func(n string) (*os.File, error) { return os.Open(in(n)) },
		"Create":    func(n string) (*os.File, error) { return os.Create(in(n)) },
		"OpenFile":  func(n string, f int, p fs.FileMode) (*os.File, error) { return os.OpenFile(in(n), f, p) },
		"ReadFile":  func(n string) ([]byte, error) { return os.ReadFile(in(n)) },
		"WriteFile": func(n string, b []byte, p fs.FileMode) error { return os.WriteFile(in(n), b, p) },
		"ReadDir":   func(n string) ([]os.DirEntry, error) { return os.ReadDir(in(n)) },
		"Stat":      func(n string) (fs.FileInfo, error) { return os.Stat(in(n)) },
		"Lstat":     func(n string) (fs.FileInfo, error) { return os.Lstat(in(n)) },
		"Mkdir":     func(n string, p fs.FileMode) error { return os.Mkdir(in(n), p) },
		"MkdirAll":  func(n string, p fs.FileMode) error { return os.MkdirAll(in(n), p) },
		"MkdirTemp": func(d, pat string) (string, error) { return os.MkdirTemp(in(d), pat) },
		"CreateTemp": func(d, pat string) (*os.File, error) {
			return os.CreateTemp(in(d), pat)
		},
		"Remove":    func(n string) error { return os.Remove(in(n)) },
		"RemoveAll": func(n string) error { return os.RemoveAll(in(n)) },
		"Rename":    func(a, b string) error { return os.Rename(in(a), in(b)) },
		"Truncate":  func(n string, size int64) error { return os.Truncate(in(n), size) },
		"Chmod":     func(n string, p fs.FileMode) error { return os.Chmod(in(n), p) },
		"Chtimes":   func(n string, a, m time.Time) error { return os.Chtimes(in(n), a, m) },
		"Symlink":   func(o, n string) error { return os.Symlink(o, in(n)) },
		"Readlink":  func(n string) (string, error) { return os.Readlink(in(n)) },
		"DirFS":     func(n string) fs.FS { return os.DirFS(in(n)) },
		"Getwd":     func() (string, error) { return dir, nil },
		"Chdir":     func(string) error { return errChdir },
	}
	out := make(interp.Exports, len(exports))
	for k, v := range exports {
		out[k] = v
	}
	if osSyms, ok := exports["os/os"]; ok {
		syms := make(map[string]reflect.Value, len(osSyms))
		for k, v := range osSyms {
			syms[k] = v
		}
		for name, fn := range over {
			syms[name] = reflect.ValueOf(fn)
		}
		out["os/os"] = syms
	}
	return out
}
