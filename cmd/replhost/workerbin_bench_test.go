package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/replhost/replhost/internal/procmem"
	"github.com/replhost/replhost/sandbox"
)

// BenchmarkWorkerBinaryMemory reports the PSS and anonymous memory of 20
// idle workers after one cell each, started from replhost (`replhost
// worker`) and from replhost-worker, the binaries TestMain built: what the
// host's packages' init costs each worker.
func BenchmarkWorkerBinaryMemory(b *testing.B) {
	for _, bin := range []struct {
		name, exe string
	}{{"replhost-worker-subcommand", replhostBin}, {"replhost-worker-binary", workerBin}} {
		b.Run(bin.name, func(b *testing.B) {
			const sessions = 20
			root := b.TempDir()
			p := sandbox.NewPool(sandbox.PoolOptions{Executable: bin.exe})
			defer p.Close()
			var pss, anon float64
			for b.Loop() {
				var ws []*sandbox.Worker
				for range sessions {
					dir := filepath.Join(root, uuid.NewString())
					for _, sub := range []string{"files", "classes/src"} {
						if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
							b.Fatal(err)
						}
					}
					w, err := p.Get(context.Background(), sandbox.WorkerOptions{Dir: dir, Memory: 256 << 20})
					if err != nil {
						b.Fatal(err)
					}
					if err := w.Eval(context.Background(), "x := 1", false); err != nil {
						b.Fatal(err)
					}
					ws = append(ws, w)
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
		})
	}
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
