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

// cgroup is one worker's cgroup in the memory, pids and cpu controllers,
// cgroup v1 or v2 alike (through containerd/cgroups). It lives at
//
//	<the host's own cgroup>/replhost-<host pid>/<group>/<worker>
//
// so workers stay inside whatever limits the host runs under, every host
// process has a tree of its own (two hosts, or a host and the tests, never
// touch each other's), and the CPU is shared first between groups (a user's
// sessions; the pool's idle workers) and only then between the sessions of
// a group: one user's six hogs get one user's share, not six.
type cgroup interface {
	add(pid int) error
	// oomKilled reports whether the kernel killed a task of the cgroup at
	// its memory cap.
	oomKilled() bool
	// threadCapHit reports whether the pids controller refused a task.
	threadCapHit() bool
	// cpuUsage is the CPU time the cgroup used so far, in nanoseconds.
	cpuUsage() (uint64, error)
	// remove deletes the cgroup; it fails while a task is in it.
	remove() error
	path() string // the cgroup's path below the host's own cgroup
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

// newCgroup makes the cgroup of one worker, name, in group (a user), with
// its limits, and moves pid into it.
func (t *cgroupTree) newCgroup(group, name string, pid int, l limits) (cgroup, error) {
	if err := cgroupsAvailable(); err != nil {
		return nil, err
	}
	group = cgroupName(group)
	p := filepath.Join(t.base, group, cgroupName(name))
	t.mu.Lock()
	defer t.mu.Unlock()
	var cg cgroup
	var err error
	if cgroups.Mode() == cgroups.Unified {
		cg, err = newV2(p, l)
	} else {
		cg, err = newV1(p, l)
	}
	if err != nil {
		t.removeEmptyLocked(group)
		return nil, fmt.Errorf("make cgroup %s: %w", p, err)
	}
	t.groups[group]++
	if err := cg.add(pid); err != nil {
		t.removeLocked(group, cg)
		return nil, fmt.Errorf("move worker into cgroup %s: %w", p, err)
	}
	return cg, nil
}

// release removes a worker's cgroup, once its process has been reaped, and
// its group's and this host's once empty, so that the host leaves its own
// cgroup as it found it.
func (t *cgroupTree) release(cg cgroup) {
	group := filepath.Base(filepath.Dir(cg.path()))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeLocked(group, cg)
}

func (t *cgroupTree) removeLocked(group string, cg cgroup) {
	// The kernel may take a moment to empty the cgroup of a process just
	// reaped.
	for i := 0; i < 100; i++ {
		if err := cg.remove(); err == nil || errors.Is(err, os.ErrNotExist) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.groups[group]--
	t.removeEmptyLocked(group)
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
