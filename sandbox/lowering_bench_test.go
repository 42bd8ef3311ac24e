package sandbox

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEvalHeavyCells runs 100 cells that each declare a type, a
// method and a function into a fresh in-process interpreter, as a restore
// replays a journal: every cell goes through the typed front end.
func BenchmarkEvalHeavyCells(b *testing.B) {
	cells := make([]string, 100)
	for i := range cells {
		cells[i] = fmt.Sprintf("type T%d struct{ A int }\nfunc (t T%d) M() int { return t.A + %d }\nfunc f%d() int { return T%d{%d}.M() }", i, i, i, i, i, i)
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		in, err := NewInterp(Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cells {
			if err := in.Eval(context.Background(), c, false); err != nil {
				b.Fatal(err)
			}
		}
		in.Close()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkEvalAfterCells is one lowered cell (and, for comparison, one
// the front end leaves alone) after n earlier heavy cells.
func BenchmarkEvalAfterCells(b *testing.B) {
	for _, n := range []int{0, 1000} {
		in, err := NewInterp(Options{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			c := fmt.Sprintf("type T%d struct{ A int }\nfunc (t T%d) M() int { return t.A }\nx%d := T%d{%d}.M()", i, i, i, i, i)
			if err := in.Eval(context.Background(), c, false); err != nil {
				b.Fatal(err)
			}
		}
		for _, tc := range []struct{ name, cell string }{
			{"lowered", "for i := range 2 { _ = i }"},
			{"plain", "1 + 2"},
		} {
			b.Run(fmt.Sprintf("%s-after-%d", tc.name, n), func(b *testing.B) {
				cpu := cpuTime()
				for b.Loop() {
					if err := in.Eval(context.Background(), tc.cell, false); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
		in.Close()
	}
}

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
