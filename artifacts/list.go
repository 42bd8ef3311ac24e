package artifacts

import (
	"io/fs"
	"strings"
)

// List returns the session's artifacts: the files below classes/src/ and
// files/ (except inside the folders archives are unpacked into) and the
// archives, in that order, each folder in lexical order. The journal in
// classes/repl/ is not an artifact. Sums are cached while a file keeps its
// size and mtime, so files written by session code are hashed once.
func (s *Store) List() ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unpacked, err := s.unpackDirs()
	if err != nil {
		return nil, err
	}
	var out []Info
	fsys := s.root.FS()
	for _, k := range []Kind{Source, File, Archive} {
		err := fs.WalkDir(fsys, k.Dir(), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if _, ok := unpacked[p]; ok {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil // symlinks are listed by what they point to, nowhere
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			sum, err := s.sumLocked(p, fi)
			if err != nil {
				return err
			}
			info := Info{Name: p, Size: fi.Size(), SHA256: sum}
			if k == Archive {
				info.Unpacked, _ = s.unpackDirOf(strings.TrimPrefix(p, "archives/"))
			}
			out = append(out, info)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
