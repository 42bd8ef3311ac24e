package sandbox

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleWatchers is what 200 idle workers cost the host: their disk
// watchers' looks (a read of each worker's /proc stat a second) and
// whatever else the host does for a worker that does nothing. Each op is
// 100 ms of waiting; host-cpu-us/worker-s is the host process's own CPU
// (getrusage, not its children) per worker per second.
//
//	go test -run '^$' -bench IdleWatchers -benchtime 50x -count 3 ./sandbox/
func BenchmarkIdleWatchers(b *testing.B) {
	needRoot(b)
	const n = 200
	root := b.TempDir()
	for range n {
		w, _ := startWorker(b, root, WorkerOptions{Disk: testDisk, Users: testUsers})
		if err := w.Eval(context.Background(), "x := 1", false); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second) // every watcher past its first walk
	before, start := hostCPU(), time.Now()
	b.ResetTimer()
	for range b.N {
		time.Sleep(100 * time.Millisecond)
	}
	b.StopTimer()
	cpu, took := hostCPU()-before, time.Since(start)
	b.ReportMetric(float64(cpu.Microseconds())/took.Seconds()/n, "host-cpu-us/worker-s")
}

// hostCPU is this process's own user and system time (its threads, not
// its children).
func hostCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
