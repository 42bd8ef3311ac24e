package cpupin

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// passes bounds how often setTree lists the tree: a list can miss a
// thread or child started while it ran (by a task not yet set), and each
// pass sets what the one before missed, until one finds nothing new
// (usually the second).
const passes = 8

// setTree sets set on every thread of pid, then on every thread of each
// of its children (of any of its threads). Threads go first: a child
// started after its parent thread was set inherits the set, and one
// started before is in the children lists read after. A task that exited
// meanwhile is no error; any other failure is, naming the task.
func setTree(pid int, set *unix.CPUSet) error {
	done := make(map[int]bool)
	for range passes {
		n := len(done)
		hostThreads, err := setThreads(pid, set, done)
		if err != nil {
			return err
		}
		var kids []int
		for _, tid := range hostThreads {
			kids = appendChildren(kids, pid, tid)
		}
		for _, kid := range kids {
			if _, err := setThreads(kid, set, done); err != nil {
				return err
			}
		}
		if len(done) == n { // a pass that found nothing new
			return nil
		}
	}
	return nil
}

// setThreads sets set on every thread of pid not in done, and returns
// the threads it listed. A process that exited has none.
func setThreads(pid int, set *unix.CPUSet, done map[int]bool) ([]int, error) {
	tids, err := listThreads(pid)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, tid := range tids {
		if done[tid] {
			continue
		}
		done[tid] = true
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return nil, fmt.Errorf("cpupin: set CPUs of thread %d of %d: %w", tid, pid, err)
		}
	}
	return tids, nil
}

// listThreads returns the thread IDs of pid.
func listThreads(pid int) ([]int, error) {
	d, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// appendChildren appends the children that thread tid of pid started. A
// thread that exited has none.
func appendChildren(kids []int, pid, tid int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, tid))
	if err != nil {
		return kids
	}
	for _, f := range strings.Fields(string(b)) {
		if kid, err := strconv.Atoi(f); err == nil {
			kids = append(kids, kid)
		}
	}
	return kids
}
