package cpupin

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary a child with several threads of its
// own, each blocked, until its stdin closes.
const helperEnv = "CPUPIN_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		var started sync.WaitGroup
		for range 4 {
			started.Add(1)
			go func() {
				runtime.LockOSThread() // a thread each, kept: the goroutine never ends
				started.Done()
				select {}
			}()
		}
		started.Wait()
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts the helper and returns its pid once its threads run.
func startChild(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	return cmd.Process.Pid
}

func newPinner(t *testing.T) *Pinner {
	t.Helper()
	p, err := New()
	if errors.Is(err, ErrOneCPU) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Unpin() })
	return p
}

// threadSets returns the CPU set of every thread of pid.
func threadSets(t *testing.T, pid int) map[int]unix.CPUSet {
	t.Helper()
	tids, err := listThreads(pid)
	if err != nil {
		t.Fatal(err)
	}
	sets := make(map[int]unix.CPUSet)
	for _, tid := range tids {
		var s unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &s); err != nil {
			if err == unix.ESRCH {
				continue // a thread that exited
			}
			t.Fatal(err)
		}
		sets[tid] = s
	}
	return sets
}

func assertAll(t *testing.T, what string, pids []int, want unix.CPUSet) {
	t.Helper()
	for _, pid := range pids {
		sets := threadSets(t, pid)
		if pid != os.Getpid() && len(sets) < 5 {
			t.Fatalf("%s: child %d has %d threads; want at least 5", what, pid, len(sets))
		}
		for tid, s := range sets {
			if s != want {
				t.Errorf("%s: thread %d of %d has CPUs %v; want %v", what, tid, pid, cpuList(s), cpuList(want))
			}
		}
	}
}

func cpuList(s unix.CPUSet) []int {
	var l []int
	for c := range maxCPUs {
		if s.IsSet(c) {
			l = append(l, c)
		}
	}
	return l
}

func TestPinMovesEveryThreadOfHostAndChildren(t *testing.T) {
	p := newPinner(t)
	before := startChild(t)
	cpu := p.CPUs()[len(p.CPUs())-1]
	if err := p.Pin(cpu); err != nil {
		t.Fatal(err)
	}
	if p.Pinned() != cpu {
		t.Fatalf("Pinned %d; want %d", p.Pinned(), cpu)
	}
	var one unix.CPUSet
	one.Set(cpu)
	after := startChild(t) // inherits the pin from the thread that starts it
	assertAll(t, "pinned", []int{os.Getpid(), before, after}, one)

	if err := p.Unpin(); err != nil {
		t.Fatal(err)
	}
	if p.Pinned() != -1 {
		t.Fatalf("Pinned %d after Unpin; want -1", p.Pinned())
	}
	assertAll(t, "unpinned", []int{os.Getpid(), before, after}, p.allowed)
	if got := cpuList(p.allowed); !slices.Equal(got, p.CPUs()) {
		t.Fatalf("CPUs %v; allowed %v", p.CPUs(), got)
	}
}

func TestHoldUnpinsAndKeepsPinOff(t *testing.T) {
	p := newPinner(t)
	child := startChild(t)
	cpu := p.CPUs()[0]
	if err := p.Pin(cpu); err != nil {
		t.Fatal(err)
	}
	release := Hold()
	if p.Pinned() != -1 {
		t.Fatalf("held: Pinned %d; want -1", p.Pinned())
	}
	assertAll(t, "held", []int{os.Getpid(), child}, p.allowed)
	if err := p.Pin(cpu); !errors.Is(err, ErrHeld) {
		t.Fatalf("Pin while held: %v; want ErrHeld", err)
	}
	second := Hold()
	release()
	release() // a second call does nothing: one hold is still in force
	if err := p.Pin(cpu); !errors.Is(err, ErrHeld) {
		t.Fatalf("Pin with a hold left: %v; want ErrHeld", err)
	}
	second()
	if err := p.Pin(cpu); err != nil {
		t.Fatalf("Pin once released: %v", err)
	}
}

func TestPinRefusesACPUNotAllowed(t *testing.T) {
	p := newPinner(t)
	if err := p.Pin(maxCPUs - 1); err == nil || p.Pinned() != -1 {
		t.Fatalf("Pin(%d): %v, pinned %d; want an error, unpinned", maxCPUs-1, err, p.Pinned())
	}
}

func TestParseStat(t *testing.T) {
	const stat = `cpu  10 0 10 100 0 0 0 0 0 0
cpu0 1 2 3 40 5 6 7 8 0 0
cpu1 100 0 50 850 0 0 0 0 0 0
cpu3 1 1 1 1 1 1 1 1 0 0
intr 1 2 3
`
	times := make([]cpuTimes, 2)
	if !parseStat([]byte(stat), []int{0, 1}, times) {
		t.Fatal("parseStat: not every CPU found")
	}
	want := []cpuTimes{{busy: 1 + 2 + 3 + 6 + 7 + 8, all: 1 + 2 + 3 + 6 + 7 + 8 + 40 + 5}, {busy: 150, all: 1000}}
	if !slices.Equal(times, want) {
		t.Fatalf("times %v; want %v", times, want)
	}
	if parseStat([]byte(stat), []int{0, 2}, times) {
		t.Fatal("parseStat: CPU 2 has no line, yet found")
	}
}

func TestSampleGivesEachCPUsShare(t *testing.T) {
	p := newPinner(t)
	if s := p.Sample(); s != nil {
		t.Fatalf("first Sample %v; want nil", s)
	}
	// Ticks of 10 ms: spin on a thread of this process until the next
	// sample sees time pass, bounded.
	for range 1000 {
		s := p.Sample()
		if len(s) != len(p.CPUs()) {
			t.Fatalf("Sample %v; want %d values", s, len(p.CPUs()))
		}
		for _, v := range s {
			if v < 0 || v > 1 {
				t.Fatalf("Sample %v: a share outside [0, 1]", s)
			}
		}
		if slices.ContainsFunc(s, func(v float64) bool { return v > 0 }) {
			return
		}
		for range 1_000_000 { // some work, so that a tick finds this CPU busy
			runtime.Gosched()
		}
	}
	t.Fatal("no CPU busy in 1000 samples")
}
