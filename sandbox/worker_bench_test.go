package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/procmem"
)

// BenchmarkWorkerStart measures a worker process from start to its ready
// handshake (spawn), and to a confined session with its interpreter
// (session); inproc is an in-process interpreter, for comparison.
func BenchmarkWorkerStart(b *testing.B) {
	b.Run("inproc", func(b *testing.B) {
		root := b.TempDir()
		for b.Loop() {
			if _, err := NewInterp(Options{Dir: sessionDir(b, root)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spawn", func(b *testing.B) {
		for b.Loop() {
			w, err := spawnWorker(context.Background(), "", nil, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			w.Close()
			b.StartTimer()
		}
	})
	b.Run("session", func(b *testing.B) {
		root := b.TempDir()
		for b.Loop() {
			w, err := StartWorker(context.Background(), WorkerOptions{Dir: sessionDir(b, root), Memory: testMemory})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			w.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkPoolGet measures Get from a pool with an idle worker: what a
// login waits for.
func BenchmarkPoolGet(b *testing.B) {
	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	root := b.TempDir()
	for b.Loop() {
		b.StopTimer()
		dir := sessionDir(b, root)
		for len(p.idle) == 0 {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
		w, err := p.Get(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}

// BenchmarkIdleWorkerMemory reports the memory of idle sessions' workers
// (from a pool: confined, interpreter made, one cell run), 20 at a time,
// from /proc/<pid>/smaps_rollup: PSS counts the binary's shared pages once
// across the workers; anon is each worker's own. after-cell reads it right
// after the cell, idle once each worker has given its memory back
// (idleRelease later; WorkerStats.IdleReleases).
func BenchmarkIdleWorkerMemory(b *testing.B) {
	for _, idle := range []bool{false, true} {
		name := "after-cell"
		if idle {
			name = "idle"
		}
		b.Run(name, func(b *testing.B) { benchIdleWorkers(b, idle) })
	}
}

func benchIdleWorkers(b *testing.B, idle bool) {
	const sessions = 20
	root := b.TempDir()
	p := NewPool(PoolOptions{})
	defer p.Close()
	var pss, anon float64
	for b.Loop() {
		var ws []*Worker
		for range sessions {
			w, err := p.Get(context.Background(), WorkerOptions{Dir: sessionDir(b, root), Memory: testMemory})
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Eval(context.Background(), "x := 1", false); err != nil {
				b.Fatal(err)
			}
			ws = append(ws, w)
		}
		if idle {
			time.Sleep(idleRelease + time.Second) // a release is skipped when too little would come back
		}
		for _, w := range ws {
			p, a := smapsRollup(b, w.PID())
			pss, anon = pss+p, anon+a
			w.Close()
		}
	}
	n := float64(b.N * sessions * (1 << 20))
	b.ReportMetric(pss/n, "PSS-MiB")
	b.ReportMetric(anon/n, "anon-MiB")
}

// BenchmarkWorkerEvalRoundTrip is one cell's round trip through a worker:
// request, checked reply, output forwarded. host-cpu is this process's CPU
// per cell, worker-cpu the worker's (from its threads' schedstat, in ns);
// BenchmarkLoadCell is the same kind of cell in-process, for comparison:
// what is left is the hop.
func BenchmarkWorkerEvalRoundTrip(b *testing.B) {
	w, _ := startWorker(b, "", WorkerOptions{})
	mustEval(b, w, "n := 0", false)
	host, worker := cpuTime(), threadsCPU(b, w.PID())
	b.ResetTimer()
	for b.Loop() {
		if err := w.Eval(context.Background(), "n++\nn", true); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-host)/float64(time.Millisecond)/float64(b.N), "host-cpu-ms/op")
	b.ReportMetric(float64(threadsCPU(b, w.PID())-worker)/float64(time.Millisecond)/float64(b.N), "worker-cpu-ms/op")
}

// threadsCPU is the CPU time pid's threads have run, from their
// /proc/<pid>/task/<tid>/schedstat (nanoseconds, where /proc/<pid>/stat
// counts 10 ms ticks).
func threadsCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var d time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		d += time.Duration(ns)
	}
	return d
}

// BenchmarkPoolFirstCell is a login's wait through a pool with an idle
// worker: Get, then the first cell's value (which waits for the session's
// interpreter).
func BenchmarkPoolFirstCell(b *testing.B) {
	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	root := b.TempDir()
	for b.Loop() {
		b.StopTimer()
		dir := sessionDir(b, root)
		for len(p.idle) == 0 {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
		w, err := p.Get(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Eval(context.Background(), "1+1", true); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}

// BenchmarkWorkerCellGrowth runs b.N cells in one worker and reports the
// worker's CPU per cell and its PSS growth per cell, right after the cells
// and once it has idled and given memory back. declare is cmd/replbench's
// front-end row (`vN := []int{N}`: the session keeps each), expr its round
// trip (a shown expression of a variable: garbage only).
func BenchmarkWorkerCellGrowth(b *testing.B) {
	for _, c := range []struct{ name, first, cell string }{
		{"declare", "1+2", "v%[1]d := []int{%[1]d}"},
		{"expr", "x := 0", "x+10000000+100000000"},
	} {
		b.Run(c.name, func(b *testing.B) {
			w, _ := startWorker(b, "", WorkerOptions{})
			mustEval(b, w, c.first, true)
			waitIdleCheck(b, w, 1)
			st, err := w.Stats()
			if err != nil {
				b.Fatal(err)
			}
			pss0, _ := smapsRollup(b, w.PID())
			cpu0 := procCPU(b, w.PID())
			b.ResetTimer()
			for i := range b.N {
				cell := c.cell
				if strings.Contains(cell, "%") {
					cell = fmt.Sprintf(cell, i)
				}
				mustEval(b, w, cell, true)
			}
			b.StopTimer()
			cpu := procCPU(b, w.PID()) - cpu0
			pss, _ := smapsRollup(b, w.PID())
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "worker-cpu-ms/op")
			b.ReportMetric((pss-pss0)/1024/float64(b.N), "PSS-KB/op")
			waitIdleCheck(b, w, st.IdleChecks+1)
			idle, _ := smapsRollup(b, w.PID())
			b.ReportMetric((idle-pss0)/1024/float64(b.N), "idle-PSS-KB/op")
			if st, err = w.Stats(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.GCPercent), "GOGC")
		})
	}
}

// waitIdleCheck waits until the worker has looked at n idle spells
// (given memory back, or found too little to give), within a minute.
func waitIdleCheck(tb testing.TB, w *Worker, n int64) {
	tb.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		st, err := w.Stats()
		if err != nil {
			tb.Fatal(err)
		}
		if st.IdleChecks >= n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d idle checks after a minute; want %d", st.IdleChecks, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// procCPU is the user and system time of process pid (10 ms ticks).
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// smapsRollup returns the PSS and the anonymous PSS of pid in bytes.
func smapsRollup(tb testing.TB, pid int) (pss, anon float64) {
	tb.Helper()
	r, err := procmem.Of(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return float64(r.PSS), float64(r.AnonPSS)
}
