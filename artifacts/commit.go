package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"syscall"
)

// commit moves the verified temporary file tmp into place as n, following
// the overwrite rules: classes/src/ is replaced, files/ only ever gets the
// same bytes again.
func (s *Store) commit(name string, n Name, tmp string, size int64, sum string) (Info, error) {
	if n.Kind == Archive {
		return s.commitArchive(name, n, tmp, size, sum)
	}
	info := Info{Name: n.Path, Size: size, SHA256: sum}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.mkParents(name, n.Path); err != nil {
		return Info{}, err
	}
	if ok, err := s.same(name, n.Path, n.Kind == Source, size, sum); ok || err != nil {
		return info, err
	}
	var err error
	if n.Kind == File {
		err = s.linkNew(tmp, n.Path)
	} else {
		err = s.root.Rename(tmp, n.Path)
	}
	if errors.Is(err, fs.ErrExist) {
		return Info{}, errf(name, ErrExists, "already exists")
	}
	if err != nil {
		return Info{}, ioErr(name, err)
	}
	if err := s.syncDir(path.Dir(n.Path)); err != nil {
		return Info{}, ioErr(name, err)
	}
	s.remember(n.Path, sum)
	return info, nil
}

// same reports whether p already holds exactly size bytes with sum, and
// fails with ErrExists if p holds something else and is not replaceable.
// Callers hold mu.
func (s *Store) same(name, p string, replaceable bool, size int64, sum string) (bool, error) {
	fi, err := s.root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, ioErr(name, err)
	}
	if !fi.Mode().IsRegular() {
		return false, errf(name, ErrExists, "already exists and is not a file")
	}
	if replaceable {
		return false, nil // no need to read the old bytes
	}
	old, err := s.sumLocked(p, fi)
	if err != nil {
		return false, ioErr(name, err)
	}
	if fi.Size() == size && old == sum {
		return true, nil
	}
	return false, errf(name, ErrExists, "already exists with other bytes")
}

// linkNew puts tmp in place as p unless p exists, atomically: a hard link
// fails on an existing name, where a rename would replace it.
func (s *Store) linkNew(tmp, p string) error {
	err := s.root.Link(tmp, p)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) {
		// No hard links on this file system: check, then rename.
		if _, err := s.root.Lstat(p); err == nil {
			return fs.ErrExist
		}
		return s.root.Rename(tmp, p)
	}
	if err != nil {
		return err
	}
	return s.root.Remove(tmp)
}

// remember caches the sum of the file just put at p. Callers hold mu.
func (s *Store) remember(p, hexSum string) {
	if fi, err := s.root.Lstat(p); err == nil {
		s.sums[p] = sum{size: fi.Size(), mtime: fi.ModTime(), hex: hexSum}
	}
}

// sumLocked returns the SHA-256 of the file p, described by fi, from the
// cache or by reading it. Callers hold mu.
func (s *Store) sumLocked(p string, fi fs.FileInfo) (string, error) {
	if c, ok := s.sums[p]; ok && c.size == fi.Size() && c.mtime.Equal(fi.ModTime()) {
		return c.hex, nil
	}
	f, err := s.root.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	hx := hex.EncodeToString(h.Sum(nil))
	s.sums[p] = sum{size: fi.Size(), mtime: fi.ModTime(), hex: hx}
	return hx, nil
}
