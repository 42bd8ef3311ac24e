package users

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// adminFile marks a user as an operator: it may list and kill every
// user's sessions over SSH.
const adminFile = "admin"

// IsAdmin reports whether user name is an operator.
func (d *Dir) IsAdmin(name string) bool {
	if CheckName(name) != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(d.Path(name), adminFile))
	return err == nil && fi.Mode().IsRegular()
}

// SetAdmin makes user name an operator, or not; the user must exist.
func (d *Dir) SetAdmin(name string, admin bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if _, err := os.Stat(d.Path(name)); err != nil {
		return fmt.Errorf("%w: %s", ErrNoUser, name)
	}
	p := filepath.Join(d.Path(name), adminFile)
	if !admin {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(p, []byte("this user may list and kill every session\n"), 0o600)
}
