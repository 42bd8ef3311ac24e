package udf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func TestRunOutputs(t *testing.T) {
	type point struct {
		X, Y int
		tag  string
	}
	tests := []struct {
		name     string
		fn       any
		input    string
		wantOut  string
		wantErrs string
		wantRecs int
	}{
		{"string-lines", strings.ToUpper, "a\nb\r\nc", "A\nB\nC\n", "", 3},
		{"empty-lines", strings.ToUpper, "a\n\n\nb\n", "A\n\n\nB\n", "", 4},
		{"no-input", strings.ToUpper, "", "", "", 0},
		{"lone-cr-kept", func(s string) string { return fmt.Sprintf("%q", s) }, "a\r\r\n", "\"a\\r\"\n", "", 1},
		{"string-error",
			func(s string) (string, error) {
				if s == "bad" {
					return "", errors.New("bad record")
				}
				return s + "!", nil
			},
			"ok\nbad\nok2\n", "ok!\nok2!\n", "record 2: bad record\n", 3},
		{"named-string", func(s myString) myString { return s + "?" }, "a\n", "a?\n", "", 1},
		{"json-arguments", func(a, b int) int { return a + b }, "[1,2]\n[3, 4]\r\n", "3\n7\n", "", 2},
		{"json-argument-count", func(a, b int) int { return a + b }, "[1]\n[1,2,3]\n",
			"", "record 1: want a JSON array of 2 arguments, got 1\nrecord 2: want a JSON array of 2 arguments, got 3\n", 2},
		{"json-argument-type", func(a, b int) int { return a + b }, "[1,\"x\"]\n",
			"", "record 1: argument 2: json: cannot unmarshal string into Go value of type int\n", 1},
		{"json-not-an-array", func(a, b int) int { return a + b }, "{}\n",
			"", "record 1: want a JSON array of 2 arguments: json: cannot unmarshal object into Go value of type []json.RawMessage\n", 1},
		{"string-to-int-takes-json", func(s string) int { return len(s) }, "[\"abc\"]\n", "3\n", "", 1},
		{"struct-result", func(x, y int) point { return point{x, y, "hidden"} }, "[1,2]\n", "{\"X\":1,\"Y\":2}\n", "", 1},
		{"html-not-escaped", func(s string) []string { return []string{s, s} }, "[\"a<b&c\"]\n", "[\"a<b&c\",\"a<b&c\"]\n", "", 1},
		{"any-string-as-is", func(n int) any { return strings.Repeat("x", n) }, "[3]\n", "xxx\n", "", 1},
		{"any-number-as-json", func(n int) any { return n * 2 }, "[3]\n", "6\n", "", 1},
		{"nil-pointer", func(n int) *point { return nil }, "[3]\n", "null\n", "", 1},
		{"no-arguments", func() string { return "hi" }, "[]\n[]\n", "hi\nhi\n", "", 2},
		{"unencodable-result", func() float64 { return math.NaN() }, "[]\n",
			"", "record 1: result: json: unsupported value: NaN\n", 1},
		{"error-only",
			func(n int) error {
				if n < 0 {
					return fmt.Errorf("%d is negative", n)
				}
				return nil
			},
			"[1]\n[-2]\n[3]\n", "", "record 2: -2 is negative\n", 3},
		{"no-results", func(s string) {}, "[\"a\"]\n[\"b\"]\n", "", "", 2},
		{"panic", func(s string) string { panic("boom") }, "a\n", "", "record 1: panic: boom\n", 1},
		{"runtime-panic",
			func(s string) string { var a []string; return a[len(s)] },
			"a\n", "", "record 1: panic: runtime error: index out of range [1] with length 0\n", 1},
		{"multi-line-error",
			func(s string) (string, error) { return "", errors.New("two\nlines") },
			"a\n", "", "record 1: \"two\\nlines\"\n", 1},
		{"goexit",
			func(s string) string {
				if s == "exit" {
					runtime.Goexit()
				}
				return s
			},
			"a\nexit\nb\nexit\nc\n", "a\nb\nc\n",
			"record 2: the function called runtime.Goexit\nrecord 4: the function called runtime.Goexit\n", 5},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers-%d", tt.name, workers), func(t *testing.T) {
				out, errs, st := runString(t, native(t, tt.fn), tt.input, workers)
				if out != tt.wantOut {
					t.Errorf("out: got %q; want %q", out, tt.wantOut)
				}
				if errs != tt.wantErrs {
					t.Errorf("errs: got %q; want %q", errs, tt.wantErrs)
				}
				wantFailed := strings.Count(tt.wantErrs, "\n")
				if st.Records != tt.wantRecs || st.Failed != wantFailed {
					t.Errorf("got %+v; want {Records:%d Failed:%d}", st, tt.wantRecs, wantFailed)
				}
			})
		}
	}
}

func TestRunManyInOrder(t *testing.T) {
	// Work that varies per record, so batches finish out of order.
	spin := func(s string) string {
		n := 0
		for range (len(s) % 7) * 200 {
			n++
		}
		return s + strings.Repeat("", n)
	}
	const n = 200_000
	want := 0
	check := &lineCheck{tb: t, name: "out", next: func() string { want++; return fmt.Sprint(want) }}
	st, err := Run(context.Background(), native(t, spin), numbers(n), check, io.Discard, 4)
	if err != nil || st.Records != n || st.Failed != 0 || check.lines != n {
		t.Errorf("got %+v, %v, %d lines; want %d records, nil, %d lines", st, err, check.lines, n, n)
	}
}

func TestRunLongLines(t *testing.T) {
	length := func(s string) string {
		if len(s) > 10 {
			return fmt.Sprint(len(s))
		}
		return s
	}
	input := "a\n" + strings.Repeat("x", MaxLine+1) + "\nb\n" +
		strings.Repeat("y", MaxLine) + "\r\n" + strings.Repeat("z", MaxLine+3) + "c"
	out, errs, st := runString(t, native(t, length), input, 2)
	if want := fmt.Sprintf("a\nb\n%d\n", MaxLine); out != want {
		t.Errorf("out: got %q; want %q", out, want)
	}
	wantErrs := "record 2: line longer than 16777216 bytes (16 MiB)\nrecord 5: line longer than 16777216 bytes (16 MiB)\n"
	if errs != wantErrs {
		t.Errorf("errs: got %q; want %q", errs, wantErrs)
	}
	if st != (Stats{Records: 5, Failed: 2}) {
		t.Errorf("got %+v; want {Records:5 Failed:2}", st)
	}
}

func TestRunStreams(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), native(t, strings.ToUpper), inR, outW, io.Discard, 2)
		outW.Close()
		done <- err
	}()
	// The input stays open: each result must come out before the next line goes in.
	buf := make([]byte, 16)
	for _, line := range []string{"a", "b", "c"} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		n, err := io.ReadAtLeast(outR, buf, 2)
		if got, want := string(buf[:n]), strings.ToUpper(line)+"\n"; err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: got %v; want nil", err)
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An endless input; the output cancels once it has seen some results.
	seen := 0
	out := &lineCheck{tb: t, name: "out", next: func() string {
		seen++
		if seen == 1000 {
			cancel()
		}
		return fmt.Sprint(seen)
	}}
	st, err := Run(ctx, native(t, strings.ToUpper), numbers(-1), out, io.Discard, 2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want %v", err, context.Canceled)
	}
	if st.Records < 1000 || st.Records != out.lines {
		t.Errorf("got %+v and %d lines; want at least 1000 records, all written", st, out.lines)
	}
}

func TestRunStopsOnCancelWhileReadBlocks(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close() // ends the Read that Run left behind
	ctx, cancel := context.WithCancel(context.Background())
	out := &lineCheck{tb: t, name: "out", next: func() string { cancel(); return "A" }}
	go io.WriteString(inW, "a\n") // then the input blocks
	_, err := Run(ctx, native(t, strings.ToUpper), inR, out, io.Discard, 2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want %v", err, context.Canceled)
	}
}

func TestRunStopsOnClosedOutput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = Run(context.Background(), native(t, strings.ToUpper), numbers(-1), w, io.Discard, 2)
	if !errors.Is(err, syscall.EPIPE) {
		t.Errorf("got %v; want %v", err, syscall.EPIPE)
	}
}

type failingReader struct{ r io.Reader }

var errDisk = errors.New("disk on fire")

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

func TestRunReadError(t *testing.T) {
	var out strings.Builder
	st, err := Run(context.Background(), native(t, strings.ToUpper),
		failingReader{strings.NewReader("a\nb\nhalf")}, &out, io.Discard, 2)
	if !errors.Is(err, errDisk) {
		t.Errorf("got %v; want %v", err, errDisk)
	}
	if out.String() != "A\nB\n" || st.Records != 2 {
		t.Errorf("got %q, %+v; want %q, 2 records", out.String(), st, "A\nB\n")
	}
}
