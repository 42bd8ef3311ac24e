package sandbox

import (
	"context"
	"fmt"
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

// BenchmarkDeclaredCell is cmd/replbench's front-end row in an in-process
// interpreter: cells `vN := []int{N}`, each kept by the session. kept-B/cell
// is the live heap a declaration leaves (after a collection); with
// -memprofile and -memprofilerate 1, inuse_space says what holds it.
func BenchmarkDeclaredCell(b *testing.B) {
	in, err := NewInterp(Options{Allow: NewAllowlist(nil)})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	if err := in.Eval(ctx, "1+2", true); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	cpu := cpuTime()
	i := 0
	for b.Loop() {
		if err := in.Eval(ctx, fmt.Sprintf("v%d := []int{%d}", i, i), true); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(in)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "kept-B/cell")
}
