package sandbox

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// IDs are the uid and gid that own a session's writable tree (files/ and
// tmp/) and that its worker runs as.
type IDs struct{ UID, GID int }

// Reserved ids a worker never runs as: root, and nobody (65534), which
// this machine's ext4 lets use the blocks reserved for root (resuid), the
// room that keeps the host's own records writable when a disk fills up.
var reservedIDs = []int{0, 65534}

// autoFirst and autoSlots place the default per-session range: one of 4096
// slots of 65536 ids between 0x70000000 and 2^31-1, picked by a hash of the
// host's root, so that two hosts on one machine seldom share ids. systemd
// leaves this range unused (its container ranges end below it).
const (
	autoFirst = 0x70000000
	autoSlots = 4096
	autoCount = 65536
)

// WorkerUsers says which uid and gid each session's worker runs as:
// either one per session, from a range, or one shared by all. One per
// session is the default: the kernel then keeps sessions apart twice
// (Landlock, and plain file permissions between uids) and accounts per
// uid. A session's uid is the owner of its files/ directory, so it stays
// the same across host restarts; a new session gets the first free uid of
// the range after a hash of its directory name. Safe for concurrent use.
type WorkerUsers struct {
	first, count int // per-session range; count 0: shared
	shared       IDs

	mu   sync.Mutex     // guards used
	used map[int]string // uid → session directory; nil until scanned
}

// ParseWorkerUser reads --worker-user: "" or "auto" (a per-session range
// picked by root), "FIRST-LAST" (a per-session range), or a user name or
// uid that all workers share. It returns nil, no switch, when spec is ""
// and the host does not run as root: only root can switch.
func ParseWorkerUser(spec, root string) (*WorkerUsers, error) {
	if os.Geteuid() != 0 {
		if spec == "" {
			return nil, nil
		}
		return nil, fmt.Errorf("--worker-user %s: the host must run as root to start workers as another user", spec)
	}
	switch {
	case spec == "" || spec == "auto":
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		return NewWorkerRange(autoRange(abs))
	case strings.Contains(spec, "-"):
		a, b, _ := strings.Cut(spec, "-")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || last < first {
			return nil, fmt.Errorf("--worker-user %q: want FIRST-LAST uids, a user or a uid", spec)
		}
		return NewWorkerRange(first, last-first+1)
	}
	u, err := user.Lookup(spec)
	if err != nil {
		if _, numErr := strconv.Atoi(spec); numErr != nil {
			return nil, fmt.Errorf("--worker-user: %w", err)
		}
		u = &user.User{Uid: spec, Gid: spec}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := checkIDs(uid, uid); err != nil {
		return nil, err
	}
	if err := checkIDs(gid, gid); err != nil {
		return nil, err
	}
	return &WorkerUsers{shared: IDs{uid, gid}}, nil
}

// autoRange is the default per-session range of the host whose root is
// abs: its slot by a hash of abs. The last slot ends one id short, at
// maxWorkerID (it reached 2^31-1, which NewWorkerRange refuses, so a root
// that hashed there could not start); every other slot is as it was, so
// a host's sessions keep their uids.
func autoRange(abs string) (first, count int) {
	h := fnv.New32a()
	h.Write([]byte(abs))
	first = autoFirst + int(h.Sum32()%autoSlots)*autoCount
	return first, min(autoCount, maxWorkerID-first+1)
}

// maxWorkerID is the highest uid or gid a worker may get.
const maxWorkerID = 1<<31 - 2

// NewWorkerRange gives each session its own uid (and the same gid) from
// [first, first+count).
func NewWorkerRange(first, count int) (*WorkerUsers, error) {
	if count <= 0 || first <= 0 || first+count-1 > maxWorkerID {
		return nil, fmt.Errorf("worker uid range %d-%d: out of bounds", first, first+count-1)
	}
	if err := checkIDs(first, first+count-1); err != nil {
		return nil, err
	}
	return &WorkerUsers{first: first, count: count}, nil
}

func checkIDs(first, last int) error {
	for _, r := range reservedIDs {
		if first <= r && r <= last {
			return fmt.Errorf("worker ids %d-%d: %d is reserved (root, or nobody, which may use ext4's reserved blocks)", first, last, r)
		}
	}
	return nil
}

func (u *WorkerUsers) inRange(id int) bool { return id >= u.first && id < u.first+u.count }

// String says what the workers run as, for the host's log.
func (u *WorkerUsers) String() string {
	if u == nil {
		return "the host's user"
	}
	if u.count == 0 {
		return fmt.Sprintf("uid %d gid %d", u.shared.UID, u.shared.GID)
	}
	return fmt.Sprintf("one uid per session from %d-%d", u.first, u.first+u.count-1)
}

// ids returns the ids of the session in dir (ROOT/<uuid>): the owner of
// its files/ if that is one of ours, else a new one.
func (u *WorkerUsers) ids(dir string) (IDs, error) {
	if u.count == 0 {
		return u.shared, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if id, err := SessionIDs(dir); err == nil && id.UID == id.GID && u.inRange(id.UID) {
		if u.used != nil {
			u.used[id.UID] = dir
		}
		return id, nil
	}
	if u.used == nil {
		u.scan(filepath.Dir(dir))
	}
	h := fnv.New32a()
	h.Write([]byte(filepath.Base(dir)))
	start := int(h.Sum32() % uint32(u.count))
	for i := 0; i < u.count; i++ {
		id := u.first + (start+i)%u.count
		if other, ok := u.used[id]; ok && other != dir {
			if owner, err := SessionIDs(other); err == nil && owner.UID == id {
				continue // a session still holds it
			}
		}
		u.used[id] = dir
		return IDs{id, id}, nil
	}
	return IDs{}, fmt.Errorf("no free worker uid in %d-%d", u.first, u.first+u.count-1)
}

// scan learns the uids that the sessions under root hold: one lstat per
// session, once per host.
func (u *WorkerUsers) scan(root string) {
	u.used = make(map[int]string)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if id, err := SessionIDs(dir); err == nil && u.inRange(id.UID) {
			u.used[id.UID] = dir
		}
	}
}

// SessionIDs returns the uid and gid that own the writable tree of the
// session in dir (ROOT/<uuid>): the owner of dir/files. What the host
// writes under files/ (uploads, unpacked archives) must be chowned to them
// (through the session's os.Root, Lchown), so that the session's code can
// use it; it is root (0, 0) when workers run as the host's user.
func SessionIDs(dir string) (IDs, error) {
	fi, err := os.Lstat(filepath.Join(dir, "files"))
	if err != nil {
		return IDs{}, err
	}
	if !fi.IsDir() {
		return IDs{}, errors.New(filepath.Join(dir, "files") + ": not a directory")
	}
	return statIDs(fi), nil
}
