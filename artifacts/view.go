package artifacts

import (
	"errors"
	"github.com/replhost/replhost/internal/safefs"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The view: what an sftp client sees of the session directory. Paths are
// slash paths from the session directory ("", "." and "files/x" alike);
// only ".", "classes", "classes/src", "files", "archives" and what lies
// below the last three are visible. The rest (session.json, the journal,
// the store's private folders) is reported as not found.

// view cleans p and checks that it is visible.
func view(p string) (string, error) {
	c := path.Clean("/" + p)[1:]
	if c == "" {
		c = "."
	}
	if !filepath.IsLocal(c) || badChars(c) != "" {
		return "", errf(p, ErrBadName, "bad path")
	}
	switch {
	case c == ".", c == "classes", c == "classes/src", c == "files", c == "archives",
		strings.HasPrefix(c, "classes/src/"), strings.HasPrefix(c, "files/"), strings.HasPrefix(c, "archives/"):
		return c, nil
	}
	return "", errf(p, ErrNotFound, "not found")
}

// Stat describes the visible path p, following symlinks (within the
// session directory only).
func (s *Store) Stat(p string) (fs.FileInfo, error) {
	c, err := view(p)
	if err != nil {
		return nil, err
	}
	fi, err := s.root.Stat(c)
	if err != nil {
		return nil, ioErr(p, err)
	}
	return fi, nil
}

// Lstat describes the visible path p, not following a final symlink.
func (s *Store) Lstat(p string) (fs.FileInfo, error) {
	c, err := view(p)
	if err != nil {
		return nil, err
	}
	fi, err := s.root.Lstat(c)
	if err != nil {
		return nil, ioErr(p, err)
	}
	return fi, nil
}

// Readlink returns the target of the symlink p.
func (s *Store) Readlink(p string) (string, error) {
	c, err := view(p)
	if err != nil {
		return "", err
	}
	t, err := s.root.Readlink(c)
	if err != nil {
		return "", ioErr(p, err)
	}
	return t, nil
}

// Open opens the visible file p for reading: a regular file only (links
// are followed within the session directory), never a fifo or a device.
func (s *Store) Open(p string) (*os.File, error) {
	c, err := view(p)
	if err != nil {
		return nil, err
	}
	f, _, err := safefs.Open(s.root, c, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ioErr(p, err)
		}
		return nil, errf(p, ErrBadName, "%v", err)
	}
	return f, nil
}

// ReadDir lists the visible folder p, sorted by name (entries are Lstat'ed).
func (s *Store) ReadDir(p string) ([]fs.FileInfo, error) {
	c, err := view(p)
	if err != nil {
		return nil, err
	}
	var names []string
	switch c {
	case ".":
		names = []string{"archives", "classes", "files"}
	case "classes":
		names = []string{"classes/src"}
	}
	if names != nil {
		out := make([]fs.FileInfo, 0, len(names))
		for _, n := range names {
			fi, err := s.root.Lstat(n)
			if err != nil {
				return nil, ioErr(n, err)
			}
			out = append(out, fi)
		}
		return out, nil
	}
	d, err := s.root.Open(c)
	if err != nil {
		return nil, ioErr(p, err)
	}
	defer d.Close()
	out, err := d.Readdir(-1)
	if err != nil {
		return nil, ioErr(p, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Mkdir creates the folder name below classes/src/ or files/ (archives/
// holds only archive files). Its parent must exist.
func (s *Store) Mkdir(name string) error {
	n, err := ParseName(name)
	if err != nil {
		return err
	}
	if n.Kind == Archive {
		return errf(name, ErrBadName, "archives/ holds archive files, not folders")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.realDirs(name, path.Dir(n.Path)); err != nil {
		return err
	}
	if _, err := s.checkRoom(name, 1); err != nil {
		return err
	}
	if err := s.root.Mkdir(n.Path, 0o755); err != nil {
		if os.IsExist(err) {
			return errf(name, ErrExists, "already exists")
		}
		return ioErr(name, err)
	}
	if n.Kind == File {
		if err := s.chown(n.Path); err != nil {
			return ioErr(name, err)
		}
	}
	return nil
}
