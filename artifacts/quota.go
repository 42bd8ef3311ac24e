package artifacts

import (
	"errors"

	"github.com/replhost/replhost/internal/diskusage"
)

// ErrQuota is the error of an upload that would take the session past its
// disk quota (see Quota).
var ErrQuota = errors.New("artifacts: disk quota exceeded")

// quota is the cap of a session directory; zero fields: none.
type quota struct{ bytes, inodes int64 }

func newQuota(bytes, inodes int64) quota {
	if bytes > 0 && inodes <= 0 {
		inodes = diskusage.InodesFor(bytes)
	}
	return quota{bytes: max(bytes, 0), inodes: max(inodes, 0)}
}

func (q quota) set() bool { return q.bytes > 0 || q.inodes > 0 }

// blockSize is what the file system allocates a file's bytes in: an upload
// reserves its size rounded up to it, as diskusage counts it.
const blockSize = 4096

func allocated(size int64) int64 { return (size + blockSize - 1) / blockSize * blockSize }

// usage measures what the session directory holds, its uploads in progress
// left out (they count by what they reserve). The walk stops just past the
// inode cap: a tree that big is over quota whatever else it holds.
func (s *Store) usage() (diskusage.Usage, error) {
	u, err := diskusage.OfExcept(s.root, ".", s.quota.inodes+1, tmpDir)
	if errors.Is(err, diskusage.ErrTooMany) {
		return u, nil // Inodes is past the cap
	}
	return u, err
}

// quotaErr is the one-line refusal of an upload.
func (s *Store) quotaErr(name string, inodes bool) error {
	if inodes {
		return errf(name, ErrQuota, "disk quota exceeded: the session may hold %d files and folders", s.quota.inodes)
	}
	return errf(name, ErrQuota, "disk quota exceeded: the session may hold %s", bytesText(s.quota.bytes))
}

// room is what an upload may still add under the quota: measured when it
// starts and again before it commits, so that files the session's code
// wrote meanwhile count too.
type room struct {
	base diskusage.Usage // the session directory without uploads in progress
}

// checkRoom measures the session and fails if adding inodes more entries,
// and the bytes reserved by all uploads in progress, would pass the quota.
func (s *Store) checkRoom(name string, inodes int64) (room, error) {
	if !s.quota.set() {
		return room{}, nil
	}
	u, err := s.usage()
	if err != nil {
		return room{}, ioErr(name, err)
	}
	r := room{base: u}
	if err := s.fits(name, r, 0, inodes); err != nil {
		return room{}, err
	}
	return r, nil
}

// fits checks that the session's usage r, plus the reservations of all
// uploads in progress, plus extra bytes and inodes, stays within the quota.
func (s *Store) fits(name string, r room, extra, inodes int64) error {
	if s.quota.inodes > 0 && r.base.Inodes+inodes > s.quota.inodes {
		return s.quotaErr(name, true)
	}
	if s.quota.bytes > 0 && r.base.Bytes+s.reserved.Load()+extra > s.quota.bytes {
		return s.quotaErr(name, false)
	}
	return nil
}

// unpackRoom is how many bytes and entries an archive may unpack to under
// the quota, its own upload counted; no quota: no limit (-1).
func (s *Store) unpackRoom(r room) (bytes, entries int64) {
	bytes, entries = -1, -1
	if s.quota.bytes > 0 {
		bytes = max(s.quota.bytes-r.base.Bytes-s.reserved.Load(), 0)
	}
	if s.quota.inodes > 0 {
		entries = max(s.quota.inodes-r.base.Inodes-1, 0)
	}
	return bytes, entries
}

// reserve takes n more bytes of the quota for an upload whose session
// measured r, or fails. Reservations of concurrent uploads add up exactly.
func (s *Store) reserve(name string, r room, n int64) error {
	if !s.quota.set() || n <= 0 {
		return nil
	}
	for {
		cur := s.reserved.Load()
		if s.quota.bytes > 0 && r.base.Bytes+cur+n > s.quota.bytes {
			return s.quotaErr(name, false)
		}
		if s.reserved.CompareAndSwap(cur, cur+n) {
			return nil
		}
	}
}
