package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// treeTasksPerCPU bounds the CPU weight of a host's whole tree of workers
// (replhost-<pid>) at this many nice-0 tasks per CPU the host runs Go on.
//
// The tree's weight is what all the host's workers together get against
// the host's own threads and every other task of the host's cgroup. Left
// at the kernel's default (one task's: cpu.shares 1024, cpu.weight 100), a
// thousand workers weighed one task: with a few busy tasks beside them
// (a build, the bench's client, the host itself), the workers got a fifth
// of the CPU, less than a thousand sessions typing a cell a second need,
// and every cell waited behind a run queue of hundreds (p99 of seconds at
// 1,000 sessions). The tree weighs its workers' count, rounded up to a
// power of two, as the same number of processes would; at most 4 per CPU,
// so that the host, which serves every session's terminal, keeps at least
// a fifth of the CPU when every worker spins.
const treeTasksPerCPU = 4

// hostProcs is the CPUs the host's runtime counts (its default GOMAXPROCS,
// read as the package loads): the host runs on fewer Ps while it is idle
// (internal/hostprocs), which says nothing of the CPU it may use.
var hostProcs = runtime.GOMAXPROCS(0)

// treeTasks is the weight, in nice-0 tasks, of a tree of n workers on a
// host running Go on procs CPUs: n rounded up to a power of two, at least
// one, at most treeTasksPerCPU*procs. Powers of two: the weight is
// written only when it changes, a handful of times for any count.
func treeTasks(n, procs int) uint64 {
	limit := uint64(max(treeTasksPerCPU*procs, 1))
	t := uint64(1)
	for t < uint64(n) && t < limit {
		t *= 2
	}
	return min(t, limit)
}

// weighTreeLocked writes the tree's CPU weight for its workers' count, if
// it changed. A failed write (no cpu controller for the tree) leaves the
// kernel's default. t.mu is held.
func (t *cgroupTree) weighTreeLocked() {
	tasks := treeTasks(len(t.of), hostProcs)
	if tasks == t.treeTasks {
		return
	}
	if writeTreeWeight(t.base, tasks) == nil {
		t.treeTasks = tasks
	}
}

// writeTreeWeight sets the CPU weight of the tree base (below the host's
// own cgroup) to tasks nice-0 tasks: cpu.shares (v1, at most 262,144) or
// cpu.weight (v2, at most 10,000).
func writeTreeWeight(base string, tasks uint64) error {
	if own, err := v2OwnDir(); err == nil {
		return os.WriteFile(filepath.Join(own, base, "cpu.weight"), []byte(strconv.FormatUint(min(tasks*100, 10000), 10)), 0)
	}
	dir, ok := v1OwnDirs()[cgroup1.Cpu]
	if !ok {
		return os.ErrNotExist
	}
	return os.WriteFile(filepath.Join(dir, base, "cpu.shares"), []byte(strconv.FormatUint(min(tasks*1024, 262144), 10)), 0)
}
