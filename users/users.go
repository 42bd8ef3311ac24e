// Package users is the host's user directory: ROOT/users/NAME/ holding the
// user's authorized_keys (OpenSSH format) and REPL history.
package users

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync/atomic"
)

// ErrNoUser is returned for a user that does not exist.
var ErrNoUser = errors.New("no such user")

var validName = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}$`)

// Dir is the user directory under a host root.
type Dir struct {
	path string
	log  atomic.Pointer[slog.Logger]
}

// SetLogger sets where skipped authorized_keys lines are reported; nil
// discards.
func (d *Dir) SetLogger(l *slog.Logger) { d.log.Store(l) }

func (d *Dir) logger() *slog.Logger {
	if l := d.log.Load(); l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// Open returns the user directory of the host root (ROOT/users).
func Open(root string) *Dir {
	return &Dir{path: filepath.Join(root, "users")}
}

// CheckName refuses a user name OpenSSH users would not recognise as one.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("invalid user name %q: lower-case letters, digits, '_', '.', '-', at most 32, not starting with a digit", name)
	}
	return nil
}

// Path is the directory of user name.
func (d *Dir) Path(name string) string { return filepath.Join(d.path, name) }

// HistoryFile is where the user's REPL history is kept across logins.
func (d *Dir) HistoryFile(name string) string { return filepath.Join(d.Path(name), "history") }

// Add creates user name, or adds keys to it, from authorized_keys text. Each
// non-comment line must parse as a public key; nothing is written otherwise.
func (d *Dir) Add(name string, authorizedKeys []byte) (int, error) {
	if err := CheckName(name); err != nil {
		return 0, err
	}
	n, err := countKeys(authorizedKeys)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(d.Path(name), 0o700); err != nil {
		return 0, fmt.Errorf("add user: %w", err)
	}
	file := filepath.Join(d.Path(name), "authorized_keys")
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	data := append(old, bytes.TrimSpace(authorizedKeys)...)
	return n, writeAtomic(file, append(data, '\n'))
}

// countKeys checks each line as a login would read it, so that a key
// added with an option this host does not implement is refused now rather
// than skipped at every login.
func countKeys(text []byte) (int, error) {
	n := 0
	for i, raw := range bytes.Split(text, []byte("\n")) {
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if _, err := parseEntry(line); err != nil {
			return 0, fmt.Errorf("authorized_keys line %d: %w", i+1, err)
		}
		n++
	}
	if n == 0 {
		return 0, errors.New("no public key given")
	}
	return n, nil
}

// Remove deletes user name and its keys and history.
func (d *Dir) Remove(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if _, err := os.Stat(d.Path(name)); err != nil {
		return fmt.Errorf("%w: %s", ErrNoUser, name)
	}
	return os.RemoveAll(d.Path(name))
}

// List returns the user names, sorted.
func (d *Dir) List() ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && CheckName(e.Name()) == nil {
			if _, err := os.Stat(filepath.Join(d.path, e.Name(), "authorized_keys")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
