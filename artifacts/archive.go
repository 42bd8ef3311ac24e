package artifacts

import (
	"compress/gzip"
	"errors"
	"github.com/replhost/replhost/internal/safefs"
	"io/fs"
	"os"
	"path"
)

// commitArchive unpacks the verified archive tmp into a private folder, then
// puts in place, in this order, the record of where it is unpacked, the
// unpacked folder, and the archive itself: the archive's arrival is the
// commit point, and Open undoes a commit cut short before it.
func (s *Store) commitArchive(name string, n Name, tmp string, size int64, sum string, r room) (Info, error) {
	info := Info{Name: n.Path, Size: size, SHA256: sum, Unpacked: n.Unpack}
	s.mu.Lock()
	done, err := s.archiveTaken(name, n, size, sum)
	s.mu.Unlock()
	if done || err != nil {
		return info, err
	}
	dir, err := s.unpack(name, n, tmp, size, r)
	if err != nil {
		return Info{}, err
	}
	defer s.root.RemoveAll(dir) // a no-op once renamed into place

	s.mu.Lock()
	defer s.mu.Unlock()
	if done, err := s.archiveTaken(name, n, size, sum); done || err != nil {
		return info, err
	}
	for _, d := range []string{"files", "archives", metaDir} {
		if err := s.realDirs(name, d); err != nil {
			return Info{}, err
		}
	}
	meta, mt := metaDir+"/"+n.Rel(), tempName("meta-")
	if err := s.root.WriteFile(mt, []byte(n.Unpack), 0o644); err != nil {
		return Info{}, ioErr(name, err)
	}
	if err := s.root.Rename(mt, meta); err != nil {
		s.root.Remove(mt)
		return Info{}, ioErr(name, err)
	}
	if err := s.root.Rename(dir, n.Unpack); err != nil {
		s.root.Remove(meta)
		return Info{}, ioErr(name, err)
	}
	if err := s.linkNew(tmp, n.Path); err != nil {
		s.root.RemoveAll(n.Unpack)
		s.root.Remove(meta)
		if errors.Is(err, fs.ErrExist) {
			return Info{}, errf(name, ErrExists, "already exists")
		}
		return Info{}, ioErr(name, err)
	}
	for _, d := range []string{metaDir, "files", "archives"} {
		if err := s.syncDir(d); err != nil {
			return Info{}, ioErr(name, err)
		}
	}
	s.remember(n.Path, sum)
	return info, nil
}

// archiveTaken reports whether the archive is already stored with the same
// bytes and unpack folder, and fails with ErrExists if its name or its
// unpack folder is taken otherwise. Callers hold mu.
func (s *Store) archiveTaken(name string, n Name, size int64, sum string) (bool, error) {
	same, err := s.same(name, n.Path, false, size, sum)
	if err != nil {
		return false, err
	}
	if same {
		if d, err := s.unpackDirOf(n.Rel()); err != nil || d != n.Unpack {
			return false, errf(name, ErrExists, "already exists, unpacked into another folder")
		}
		return true, nil
	}
	_, err = s.root.Lstat(n.Unpack)
	switch {
	case err == nil:
		return false, errf(name, ErrExists, "%s already exists", n.Unpack)
	case !errors.Is(err, fs.ErrNotExist):
		return false, ioErr(name, err)
	}
	return false, nil
}

// unpack unpacks the archive file tmp into a new private folder and returns
// the folder. On error the folder is gone.
func (s *Store) unpack(name string, n Name, tmp string, size int64, rm room) (_ string, err error) {
	dir := tempName("unpack-")
	if err := s.root.Mkdir(dir, 0o755); err != nil {
		return "", ioErr(name, err)
	}
	defer func() {
		if err != nil {
			s.root.RemoveAll(dir)
		}
	}()
	r, err := s.root.OpenRoot(dir)
	if err != nil {
		return "", ioErr(name, err)
	}
	defer r.Close()
	f, fi, err := safefs.Open(s.root, tmp, os.O_RDONLY, 0)
	if err != nil {
		return "", ioErr(name, err)
	}
	defer f.Close()
	if fi.Size() != size {
		return "", errf(name, ErrChecksum, "size is %d bytes; %d were written", fi.Size(), size)
	}
	x := newExtractor(r, s.lim, name)
	if s.quota.set() {
		b, e := s.unpackRoom(rm)
		x.quota = &quotaCap{bytes: b, entries: e, bytesErr: s.quotaErr(name, false), inodesErr: s.quotaErr(name, true)}
	}
	if err := x.extract(n.format, f, size); err != nil {
		return "", err
	}
	if err := x.syncDirs(); err != nil {
		return "", ioErr(name, err)
	}
	if err := chownTree(r, s.owner); err != nil {
		return "", ioErr(name, err)
	}
	return dir, nil
}

// extract unpacks an archive of format f, read from file of size bytes.
func (x *extractor) extract(f format, file *os.File, size int64) error {
	switch f {
	case formatTar:
		return x.tar(file)
	case formatTarGz:
		gz, err := gzip.NewReader(file)
		if err != nil {
			return errf(x.name, ErrBadArchive, "not a gzip file: %v", err)
		}
		defer gz.Close()
		return x.tar(gz)
	case formatZip:
		return x.zip(file, size)
	}
	return errf(x.name, ErrBadArchive, "unsupported archive type")
}

// syncDirs makes the unpacked folders' entries durable (files are synced as
// they are written).
func (x *extractor) syncDirs() error {
	dirs := []string{"."}
	for p, k := range x.kinds {
		if k == fs.ModeDir {
			dirs = append(dirs, p)
		}
	}
	for _, d := range dirs {
		f, err := x.root.Open(path.Clean(d))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
