package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name, fn, in, want string
		wantErr            bool
	}{
		{"up", "up", "hello\nWorld, é\n", "HELLO\nWORLD, É\n", false},
		{"up-no-final-newline", "up", "a\nb", "A\nB\n", false},
		{"add", "add", "[1,2]\n[40, 2]\n", "3\n42\n", false},
		{"add-bad-record", "add", "[1,2]\nnope\n", "", true},
		{"unknown-function", "down", "x\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Run(tt.fn, strings.NewReader(tt.in), &out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v; want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && out.String() != tt.want {
				t.Errorf("got %q; want %q", out.String(), tt.want)
			}
		})
	}
}

// Input lines the same as sshd's BenchmarkUDFCall's.
func upLine(dst []byte, i int) []byte {
	return strconv.AppendInt(append(dst, "hello world, record "...), int64(i), 10)
}

func addLine(dst []byte, i int) []byte {
	dst = strconv.AppendInt(append(dst, '['), int64(i), 10)
	return append(strconv.AppendInt(append(dst, ','), int64(i%1000), 10), ']')
}

// BenchmarkRun is the native program's loop over the same bytes as the
// SSH benchmarks, generated before the timer starts.
func BenchmarkRun(b *testing.B) {
	for _, fn := range []struct {
		name string
		line func([]byte, int) []byte
	}{{"up", upLine}, {"add", addLine}} {
		b.Run(fn.name, func(b *testing.B) {
			var in []byte
			for i := 1; i <= b.N; i++ {
				in = append(fn.line(in, i), '\n')
			}
			b.SetBytes(int64(len(in) / b.N))
			b.ResetTimer()
			n, err := Run(fn.name, bytes.NewReader(in), io.Discard)
			if err != nil || n != b.N {
				b.Fatalf("got %d records, %v; want %d", n, err, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
