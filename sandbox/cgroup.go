package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// cgroup v1 or v2 alike (through containerd/cgroups). Every host process
// has a tree of its own below its own cgroup, so workers stay inside
// whatever limits the host runs under and two hosts (or a host and the
// tests) never touch each other's:
//
//	<host's cgroup>/replhost-<host pid>/w-<worker pid>
//
// made when the worker starts (idle, in the pool), its limits set when it
// gets its session: writes to files of its own, no move of the process
// (which takes the kernel's cgroup-wide lock and an RCU grace period, ms
// on a loaded machine). The CPU is shared equally between groups (a
// user's sessions; the pool's idle workers): the workers of a group split
// the group's weight, so one user's six hogs get one user's share, not six.
type cgroup interface {
	// setLimits sets the memory and thread caps.
	setLimits(l limits) error
	// setWeight sets the CPU weight, a part of groupWeight.
	setWeight(w uint64) error
	// oomKilled reports whether the kernel killed a task of the cgroup at
	// its memory cap.
	oomKilled() bool
	// threadCapHit reports whether the pids controller refused a task.
	threadCapHit() bool
	// remove deletes the cgroup; it fails while a task is in it.
	remove() error
	path() string // below the host's own cgroup
}

// groupWeight is the CPU weight of each group, split between its workers:
// in cgroup v1 cpu.shares (1024 is one task's), in v2 cpu.weight (100),
// scaled. 1,200 divides evenly by every session count up to 16 (the
// default per-user cap) but 7 and 9 to 11.
const groupWeight = 1200

// cgroupTree makes and removes this host's worker cgroups. It is safe for
// concurrent use.
type cgroupTree struct {
	base string // replhost-<pid>, below the host's own cgroup

	mu     sync.Mutex                   // serializes changes of the tree; guards groups
	groups map[string]map[cgroup]string // group → its workers' cgroups
	of     map[cgroup]string            // a worker's group
	weight map[cgroup]uint64            // the weight last written to a worker's cgroup
	// treeTasks is the tree's weight last written, in nice-0 tasks
	// (cgroup_tree.go); 0: none written since the tree was made.
	treeTasks uint64
}

var hostCgroups = &cgroupTree{
	base:   "replhost-" + strconv.Itoa(os.Getpid()),
	groups: make(map[string]map[cgroup]string),
	of:     make(map[cgroup]string),
	weight: make(map[cgroup]uint64),
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
	t.mu.Lock()
	defer t.mu.Unlock()
	rel := filepath.Join(t.base, workerCgroupName(pid))
	var cg cgroup
	var err error
	if cgroups.Mode() == cgroups.Unified {
		cg, err = newV2(rel, pid, l)
	} else {
		cg, err = newV1(rel, pid, l)
	}
	if err != nil {
		if len(t.of) == 0 {
			removeCgroupDirs(t.base)
		}
		return nil, fmt.Errorf("worker cgroup: %w", err)
	}
	t.joinLocked(cg, group)
	t.weighTreeLocked()
	return cg, nil
}

// regroup gives a worker's cgroup new limits and moves it to group.
func (t *cgroupTree) regroup(cg cgroup, group string, l limits) error {
	if err := cg.setLimits(l); err != nil {
		return fmt.Errorf("worker cgroup: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveLocked(cg)
	t.joinLocked(cg, group)
	return nil
}

func (t *cgroupTree) joinLocked(cg cgroup, group string) {
	if t.groups[group] == nil {
		t.groups[group] = make(map[cgroup]string)
	}
	t.groups[group][cg] = group
	t.of[cg] = group
	t.balanceLocked(group)
}

func (t *cgroupTree) leaveLocked(cg cgroup) {
	group, ok := t.of[cg]
	if !ok {
		return
	}
	delete(t.of, cg)
	delete(t.weight, cg)
	delete(t.groups[group], cg)
	if len(t.groups[group]) == 0 {
		delete(t.groups, group)
		return
	}
	t.balanceLocked(group)
}

// balanceLocked splits the group's CPU weight between its workers. Only
// weights that change are written: a user's thousandth login rewrote a
// thousand cpu.shares files (all logins wait on mu), though 1200/n changes
// rarely for large n.
func (t *cgroupTree) balanceLocked(group string) {
	members := t.groups[group]
	w := max(groupWeight/uint64(len(members)), 1)
	for cg := range members {
		if t.weight[cg] == w {
			continue
		}
		if cg.setWeight(w) == nil { // a failed write leaves the old share
			t.weight[cg] = w
		}
	}
}

// release removes a worker's cgroup, once its process has been reaped, and
// this host's tree once empty, so that the host leaves its own cgroup as it
// found it.
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
	t.leaveLocked(cg)
	if len(t.of) == 0 {
		removeCgroupDirs(t.base)
		t.treeTasks = 0 // the next tree starts at the kernel's default
		return
	}
	t.weighTreeLocked()
}

// workerCgroupName names a worker's own cgroup.
func workerCgroupName(pid int) string { return "w-" + strconv.Itoa(pid) }

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
