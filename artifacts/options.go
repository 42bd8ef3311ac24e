package artifacts

import (
	"errors"
	"io/fs"
	"os"
)

// Option configures a Store at Open.
type Option func(*Store)

// Quota caps what the whole session directory may hold, by the rule of
// internal/diskusage (allocated bytes and inodes): an upload that would
// pass either cap is refused with ErrQuota and leaves nothing. A cap <= 0
// is none; with a byte cap and no inode cap, the inode cap is
// diskusage.InodesFor(bytes).
func Quota(bytes, inodes int64) Option {
	return func(s *Store) { s.quota = newQuota(bytes, inodes) }
}

// Owner makes what the store writes under files/ (uploaded files, unpacked
// archives, the folders it makes there) owned by uid and gid before it
// becomes visible, so that a worker running as that user can use it. The
// zero value, Owner(0, 0), leaves ownership as it is (the host's).
func Owner(uid, gid int) Option {
	return func(s *Store) { s.owner = owner{uid, gid} }
}

// owner is the uid and gid of files/; zero: the host's.
type owner struct{ uid, gid int }

func (o owner) set() bool { return o.uid != 0 || o.gid != 0 }

// chown gives p (a path in the session directory, not followed if a
// symlink) to the store's owner, if one is set.
func (s *Store) chown(p string) error {
	if !s.owner.set() {
		return nil
	}
	return s.root.Lchown(p, s.owner.uid, s.owner.gid)
}

// chownTree gives every entry of the folder dir of r, and dir itself, to
// the store's owner. Links are changed, never followed.
func chownTree(r *os.Root, o owner) error {
	if !o.set() {
		return nil
	}
	return fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return r.Lchown(p, o.uid, o.gid)
	})
}
