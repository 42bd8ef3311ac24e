package sandbox

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCPUFairness measures a canary session's eval latency while six
// sessions of another user spin (three threads each) on this machine's
// cores: with the CPU shared per user first (the hogs in one group), and,
// for comparison, with every session a group of its own. The hogs are
// stopped and continued (SIGSTOP, SIGCONT) every 10 cells, so that the
// canary's latency with and without them is measured under the same load
// from the rest of the machine. It reports the canary's p99 with the hogs
// and its ratio to the p99 without them.
//
//	go test ./sandbox/ -run '^$' -bench CPUFairness -benchtime 200x
func BenchmarkCPUFairness(b *testing.B) {
	if err := cgroupsAvailable(); err != nil {
		b.Skipf("no cgroups: %v", err)
	}
	for _, bc := range []struct {
		name     string
		hogGroup func(i int) string
	}{
		{"per-user", func(int) string { return "hog" }},
		{"per-session", func(i int) string { return "hog" + string(rune('a'+i)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root := b.TempDir()
			canary, _ := startWorker(b, root, WorkerOptions{Group: "canary"})
			cell := "s := 0\nfor i := 0; i < 20000; i++ { s += i }\ns"
			latencies(b, canary, cell, 5) // warm up
			var hogs []*Worker
			signal := func(sig syscall.Signal) {
				for _, w := range hogs {
					syscall.Kill(w.PID(), sig)
				}
			}
			for i := range 6 {
				w, _ := startWorker(b, root, WorkerOptions{Group: bc.hogGroup(i)})
				hogs = append(hogs, w)
				go w.Eval(context.Background(), "for j := 0; j < 2; j++ { go func() { for {} }() }\nfor {}", false)
			}
			time.Sleep(200 * time.Millisecond) // let the hogs spin up (a benchmark, not a test)
			var busy, idle []time.Duration
			b.ResetTimer()
			for len(busy) < b.N {
				busy = append(busy, latencies(b, canary, cell, min(10, b.N-len(busy)))...)
				b.StopTimer()
				signal(syscall.SIGSTOP)
				idle = append(idle, latencies(b, canary, cell, 10)...)
				signal(syscall.SIGCONT)
				b.StartTimer()
			}
			b.StopTimer()
			for _, w := range hogs {
				w.Close()
			}
			b.ReportMetric(float64(p99(busy).Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(p99(idle).Microseconds())/1000, "idle-p99-ms")
			b.ReportMetric(float64(p99(busy))/float64(p99(idle)), "p99-ratio")
		})
	}
}

func latencies(tb testing.TB, w *Worker, cell string, n int) []time.Duration {
	tb.Helper()
	d := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := w.Eval(context.Background(), cell, false); err != nil {
			tb.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	return d
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*99/100)]
}

// BenchmarkPoolGetConfined is BenchmarkPoolGet with what a host running as
// root does besides: a uid of the session's own (chown of its trees), the
// cgroup moved from the pool's group to the user's, the disk watcher.
func BenchmarkPoolGetConfined(b *testing.B) {
	if testUsers == nil {
		b.Skip("needs root")
	}
	p := NewPool(PoolOptions{Size: 1, Users: testUsers})
	defer p.Close()
	root := b.TempDir()
	for b.Loop() {
		b.StopTimer()
		dir := sessionDir(b, root)
		for len(p.idle) == 0 {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
		w, err := p.Get(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory, Group: "alice"})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}
