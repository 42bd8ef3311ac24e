package udf

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// benchRun runs b.N records of line through f and reports records/s.
func benchRun(b *testing.B, f *Func, line func([]byte, int) []byte, workers int) {
	b.Helper()
	in := &genLines{n: b.N, line: line}
	b.ResetTimer()
	st, err := Run(context.Background(), f, in, io.Discard, io.Discard, workers)
	if err != nil || st.Records != b.N || st.Failed != 0 {
		b.Fatalf("got %+v, %v; want %d records, none failed", st, err, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkRunUpper(b *testing.B) {
	line := func(dst []byte, i int) []byte {
		return strconv.AppendInt(append(dst, "hello world, record "...), int64(i), 10)
	}
	funcs := []struct {
		name string
		f    func(testing.TB) *Func
	}{
		{"native", func(tb testing.TB) *Func { return native(tb, strings.ToUpper) }},
		{"interpreted", func(tb testing.TB) *Func {
			return interpreted(tb, "upper", `func(s string) string { return strings.ToUpper(s) }`, "strings")
		}},
	}
	for _, fn := range funcs {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers-%d", fn.name, workers), func(b *testing.B) {
				benchRun(b, fn.f(b), line, workers)
			})
		}
	}
}

func BenchmarkRunJSON(b *testing.B) {
	line := func(dst []byte, i int) []byte {
		dst = strconv.AppendInt(append(dst, '['), int64(i), 10)
		return append(strconv.AppendInt(append(dst, ','), int64(i%1000), 10), ']')
	}
	funcs := []struct {
		name string
		f    func(testing.TB) *Func
	}{
		{"native", func(tb testing.TB) *Func { return native(tb, func(a, b int) int { return a + b }) }},
		{"interpreted", func(tb testing.TB) *Func {
			return interpreted(tb, "add", `func(a, b int) int { return a + b }`)
		}},
	}
	for _, fn := range funcs {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers-%d", fn.name, workers), func(b *testing.B) {
				benchRun(b, fn.f(b), line, workers)
			})
		}
	}
}

// BenchmarkCallInterpreted is the floor under BenchmarkRunUpper/interpreted:
// Go calling the interpreted function in a loop, one goroutine, no I/O.
func BenchmarkCallInterpreted(b *testing.B) {
	f := interpreted(b, "upper", `func(s string) string { return strings.ToUpper(s) }`, "strings")
	for b.Loop() {
		f.str("hello world, record 12345")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
