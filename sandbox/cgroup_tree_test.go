package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestTreeTasks(t *testing.T) {
	for _, c := range []struct {
		n, procs int
		want     uint64
	}{
		{0, 2, 1}, {1, 2, 1}, {2, 2, 2}, {3, 2, 4}, {5, 2, 8}, {1000, 2, 8},
		{1000, 64, 256}, {100, 64, 128}, {1, 0, 1},
	} {
		if got := treeTasks(c.n, c.procs); got != c.want {
			t.Errorf("treeTasks(%d, %d) = %d; want %d", c.n, c.procs, got, c.want)
		}
	}
}

// The host's tree of workers weighs its workers' count (up to 4 per CPU),
// not one task's, against the host's threads and the rest of the machine.
func TestTreeWeighsItsWorkers(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	root := t.TempDir()
	var ws []*Worker
	for range 3 {
		w, _ := startWorker(t, root, WorkerOptions{Group: "tess"})
		ws = append(ws, w)
	}
	tree := filepath.Dir(cgroupDir(t, ws[0], "cpu"))
	shares := func() string {
		b, _ := os.ReadFile(filepath.Join(tree, "cpu.shares"))
		return strings.TrimSpace(string(b))
	}
	want := func() string {
		hostCgroups.mu.Lock()
		defer hostCgroups.mu.Unlock()
		return strconv.FormatUint(treeTasks(len(hostCgroups.of), runtime.GOMAXPROCS(0))*1024, 10)
	}
	if got, w := shares(), want(); got != w || w == "1024" {
		t.Errorf("tree %s has cpu.shares %s with 3 workers or more; want %s, more than one task's", tree, got, w)
	}
	ws[2].Close()
	ws[1].Close()
	if got, w := shares(), want(); got != w {
		t.Errorf("tree has cpu.shares %s after two workers closed; want %s", got, w)
	}
}
