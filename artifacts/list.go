package artifacts

import (
	"errors"
	"io/fs"
	"strings"
)

// List returns the session's artifacts: the files below classes/src/ and
// files/ (except inside the folders archives are unpacked into) and the
// archives, in that order, each folder in lexical order. The journal in
// classes/repl/ is not an artifact.
//
// The sum of a file the store wrote is known; a file the session's code
// wrote (or changed) is hashed once per version, and one listing hashes at
// most Limits.MaxHashBytes: a file that does not fit in what is left is
// listed with NotHashed, and hashed by a later listing if it fits then (one
// larger than MaxHashBytes never is).
func (s *Store) List() ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unpacked, err := s.unpackDirs()
	if err != nil {
		return nil, err
	}
	var out []Info
	budget := s.lim.MaxHashBytes
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
			sum, ok := s.cachedSum(p, fi)
			switch {
			case ok:
			case fi.Size() > budget:
				sum = NotHashed
			default:
				budget -= fi.Size()
				if sum, err = s.hashFile(p, fi); errors.Is(err, fs.ErrNotExist) {
					return nil // removed by the session's code since the walk saw it
				} else if err != nil {
					sum = NotHashed // replaced by a fifo, say: nothing to hash
				}
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
