package sandbox

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// BenchmarkShownCell is the bench's 20-character cell, its value shown, in
// an in-process interpreter: the worker's share of a round trip. It reports
// the heap the session keeps per cell (after a collection), which the
// cells of a long session add up to.
func BenchmarkShownCell(b *testing.B) {
	benchCell(b, "x := 0", "x+10000000+100000000")
}

// BenchmarkLoadCell is cmd/replbench's load cell, `c++; c`: a statement
// and a shown expression of a session variable.
func BenchmarkLoadCell(b *testing.B) {
	benchCell(b, "c := 0", "c++; c")
}

func benchCell(b *testing.B, setup, cell string) {
	in, err := NewInterp(Options{Allow: NewAllowlist(nil)})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	if err := in.Eval(ctx, setup, false); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if err := in.Eval(ctx, cell, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(in)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "kept-B/cell")
}
