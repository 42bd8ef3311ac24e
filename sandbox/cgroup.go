package sandbox

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/cgroups/v3"
)

// DefaultMaxThreads is a worker's cap on threads (the pids cgroup) when
// WorkerOptions.MaxThreads is 0. A Go worker runs about a dozen threads; a
// cell blocked in many system calls at once needs more, a thread bomb
// (4,005 threads were seen) stops here.
const DefaultMaxThreads = 256

// limits are what a worker's cgroup enforces.
type limits struct {
	memory  int64 // bytes; memory+swap too where swap is accounted
	threads int64 // tasks (threads) in the pids controller
}

// cgroup is one worker's place in the memory, pids and cpu controllers,
// cgroup v1 or v2 alike (through containerd/cgroups). Every host process
// has a tree of its own below its own cgroup, so workers stay inside
// whatever limits the host runs under and two hosts (or a host and the
// tests) never touch each other's:
//
//	v1: <host's cgroup>/replhost-<host pid>/w-<worker pid>   memory, pids
//	    <host's cgroup>/replhost-<host pid>/<group>          cpu
//	v2: <host's cgroup>/replhost-<host pid>/<group>/w-<worker pid>
//
// A group is a user's sessions, or the pool's idle workers: the CPU is
// shared equally between groups first, so one user's six hogs get one
// user's share, not six. On v1 moving a worker to its user's group at
// login is one write, its memory and pids cgroup made while it was idle.
type cgroup interface {
	// regroup moves the worker to group under new limits.
	regroup(base, group string, l limits) error
	// oomKilled reports whether the kernel killed a task of the cgroup at
	// its memory cap.
	oomKilled() bool
	// threadCapHit reports whether the pids controller refused a task.
	threadCapHit() bool
	// remove deletes the worker's cgroup; it fails while a task is in it.
	remove() error
	group() string
	path() string // the worker's cgroup below the host's own
}

// cgroupTree makes and removes this host's worker cgroups. It is safe for
// concurrent use.
type cgroupTree struct {
	base string // replhost-<pid>, below the host's own cgroup

	mu     sync.Mutex     // serializes making and removing groups; guards groups
	groups map[string]int // workers per group
}

var hostCgroups = &cgroupTree{
	base:   "replhost-" + strconv.Itoa(os.Getpid()),
	groups: make(map[string]int),
}

var cgroupAvailable struct {
	once sync.Once
	err  error
}

// cgroupsAvailable reports whether workers can get cgroups here. The first
// call also removes the trees of hosts that are gone (SIGKILL leaves them).
func cgroupsAvailable() error {
	ca := &cgroupAvailable
	ca.once.Do(func() {
		switch cgroups.Mode() {
		case cgroups.Unavailable:
			ca.err = errors.New("no cgroup file system")
			return
		case cgroups.Unified:
			ca.err = v2Available()
		default:
			ca.err = v1Available()
		}
		if ca.err == nil {
			sweepCgroupTrees()
		}
	})
	return ca.err
}

// newCgroup makes the cgroup of worker pid in group, with its limits, and
// moves pid into it.
func (t *cgroupTree) newCgroup(group string, pid int, l limits) (cgroup, error) {
	if err := cgroupsAvailable(); err != nil {
		return nil, err
	}
	group = cgroupName(group)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.groups[group]++
	var cg cgroup
	var err error
	if cgroups.Mode() == cgroups.Unified {
		cg, err = newV2(t.base, group, pid, l)
	} else {
		cg, err = newV1(t.base, group, pid, l)
	}
	if err != nil {
		t.groups[group]--
		t.removeEmptyLocked(group)
		return nil, fmt.Errorf("worker cgroup: %w", err)
	}
	return cg, nil
}

// regroup moves a worker's cgroup to group under new limits.
func (t *cgroupTree) regroup(cg cgroup, group string, l limits) error {
	group = cgroupName(group)
	t.mu.Lock()
	defer t.mu.Unlock()
	old := cg.group()
	t.groups[group]++
	if err := cg.regroup(t.base, group, l); err != nil {
		t.groups[group]--
		t.removeEmptyLocked(group)
		return fmt.Errorf("worker cgroup: %w", err)
	}
	t.groups[old]--
	t.removeEmptyLocked(old)
	return nil
}

// release removes a worker's cgroup, once its process has been reaped, and
// its group's and this host's once empty, so that the host leaves its own
// cgroup as it found it.
func (t *cgroupTree) release(cg cgroup) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The kernel may take a moment to empty the cgroup of a process just
	// reaped.
	for i := 0; i < 100; i++ {
		if err := cg.remove(); err == nil || errors.Is(err, os.ErrNotExist) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	t.groups[cg.group()]--
	t.removeEmptyLocked(cg.group())
}

func (t *cgroupTree) removeEmptyLocked(group string) {
	if t.groups[group] > 0 {
		return
	}
	delete(t.groups, group)
	removeCgroupDirs(filepath.Join(t.base, group))
	if len(t.groups) == 0 {
		removeCgroupDirs(t.base)
	}
}

// workerCgroupName names a worker's own cgroup.
func workerCgroupName(pid int) string { return "w-" + strconv.Itoa(pid) }

var cgroupNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// cgroupName makes s one safe path element: as is when it is one, else a
// hash of it.
func cgroupName(s string) string {
	if cgroupNameRE.MatchString(s) {
		return s
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	return "x" + strconv.FormatUint(h.Sum64(), 16)
}

// sweepCgroupTrees removes the trees replhost-<pid> of host processes that
// are gone, in every controller we use. A live pid's tree is left alone (a
// pid reused by another process only delays the sweep).
func sweepCgroupTrees() {
	for _, own := range ownCgroupDirs() {
		entries, _ := os.ReadDir(own)
		for _, e := range entries {
			n, ok := strings.CutPrefix(e.Name(), "replhost-")
			pid, err := strconv.Atoi(n)
			if !ok || err != nil || !e.IsDir() || pid == os.Getpid() {
				continue
			}
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
				removeTree(filepath.Join(own, e.Name()))
			}
		}
	}
}

// removeTree removes an empty cgroup directory tree, leaves first (a
// cgroup's files cannot be removed, only its directory).
func removeTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}

// removeCgroupDirs removes rel (below the host's own cgroup) in every
// controller, where it is empty.
func removeCgroupDirs(rel string) {
	for _, own := range ownCgroupDirs() {
		os.Remove(filepath.Join(own, rel))
	}
}

// poolGroup holds the idle workers of pools.
const poolGroup = "idle"

// groupOf is the cgroup group of a session's Group.
func groupOf(g string) string {
	if g == "" {
		return "default"
	}
	return "u-" + g
}
