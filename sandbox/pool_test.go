package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPoolGetConfinesIdleWorker(t *testing.T) {
	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	root := t.TempDir()
	out := &syncBuffer{}
	dir := sessionDir(t, root)
	w, err := p.Get(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory, Stdout: out, Stderr: out})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got, want := w.sessionFiles(t), filepath.Join(dir, "files"); got != want {
		t.Errorf("working directory %q; want %q", got, want)
	}
	err = w.Eval(context.Background(), "import \"os\"\n_, err := os.ReadFile(\"/etc/passwd\")\nerr", true)
	if got := out.String(); err != nil || !strings.Contains(got, "permission denied") {
		t.Errorf("read /etc/passwd from a pooled worker: %q, %v; want permission denied", got, err)
	}
}

func TestPoolCloseEndsIdleWorkers(t *testing.T) {
	p := NewPool(PoolOptions{Size: 2})
	var idle []*Worker
	for len(idle) < 2 {
		idle = append(idle, <-p.idle) // wait for the refill, then put them back
	}
	for _, w := range idle {
		p.idle <- w
	}
	p.Close()
	p.Close()
	for _, w := range idle {
		if w.usable() == nil {
			t.Errorf("idle worker %d alive after Close", w.PID())
		}
	}
}

// TestPoolNothingLeft opens and closes 200 sessions through a pool and
// counts what the host holds before and after: goroutines, file
// descriptors, child processes, cgroups.
func TestPoolNothingLeft(t *testing.T) {
	n := 200
	if testing.Short() || raceBuild {
		n = 30
	}
	root := t.TempDir()
	w, _ := startWorker(t, root, WorkerOptions{}) // the spawner thread runs from now on
	w.Close()
	goroutines, fds := runtime.NumGoroutine(), countFDs(t)

	p := NewPool(PoolOptions{Size: 2})
	for i := range n {
		w, err := p.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, root), Memory: testMemory})
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if err := w.Eval(context.Background(), "x := 1\nx", true); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		w.Close()
	}
	p.Close()

	for i := 0; i < 500 && runtime.NumGoroutine() > goroutines; i++ {
		time.Sleep(10 * time.Millisecond) // goroutines of exited workers finish
	}
	if got := runtime.NumGoroutine(); got > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d after, %d before\n%s", got, goroutines, buf[:runtime.Stack(buf, true)])
	}
	// Close waits for its worker: nothing of it may be open after (a disk
	// watcher that joined as its worker ended held the session's root and
	// the worker's /proc stat until its loop came round).
	if got := countFDs(t); got > fds {
		t.Errorf("file descriptors: %d after, %d before", got, fds)
	}
	if kids := children(t); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
	if left := ownCgroupsLeft(); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
}

func countFDs(tb testing.TB) int {
	tb.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatal(err)
	}
	return len(entries)
}

// children lists the processes whose parent is this one.
func children(tb testing.TB) []int {
	tb.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	self := strconv.Itoa(os.Getpid())
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := statFields(string(b)); f[3] == self {
			pid, _ := strconv.Atoi(f[0])
			kids = append(kids, pid)
		}
	}
	return kids
}

// TestNoWorkerOutlivesHost starts a host process with 20 workers, kills it
// with SIGKILL, and looks for the workers for at most a second.
func TestNoWorkerOutlivesHost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe, "-test.run=^$")
	host.Env = append(os.Environ(), helperHostEnv+"=20", helperRootEnv+"="+t.TempDir())
	stdout, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("helper host said %q", sc.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) != 20 {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("helper host started %d workers; want 20", len(pids))
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	start := time.Now()
	var alive []int
	for time.Since(start) < time.Second {
		alive = alive[:0]
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("all 20 workers gone %v after the host's SIGKILL", time.Since(start).Round(time.Millisecond))
	if len(alive) > 0 {
		for _, pid := range alive {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("workers alive a second after their host was killed: %v", alive)
	}
	if cgroupsAvailable() == nil {
		sweepCgroupTrees() // the dead host's cgroups
	}
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && statFields(string(b))[2] != "Z"
}
