package artifacts

import (
	"errors"
	"io/fs"
	"path"
	"syscall"
)

// commit moves the verified temporary file tmp into place as n, following
// the overwrite rules: classes/src/ is replaced, files/ only ever gets the
// same bytes again.
func (s *Store) commit(name string, n Name, tmp string, size int64, sum string, r room) (Info, error) {
	if n.Kind == Archive {
		return s.commitArchive(name, n, tmp, size, sum, r)
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
		if err := s.chown(tmp); err != nil {
			return Info{}, ioErr(name, err)
		}
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
	// Sizes first: the old file may be anything the session's code made,
	// a 64 GiB sparse file say; one of the new size costs what the upload did.
	if fi.Size() != size {
		return false, errf(name, ErrExists, "already exists with other bytes")
	}
	old, ok := s.cachedSum(p, fi)
	if !ok {
		if old, err = s.hashFile(p, fi); err != nil {
			return false, ioErr(name, err)
		}
	}
	if old == sum {
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
