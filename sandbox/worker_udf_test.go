package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func startUDFWorker(tb testing.TB) *Worker {
	tb.Helper()
	w, _ := startWorker(tb, "", WorkerOptions{})
	mustEval(tb, w, `import ("strings"; "udf")`, false)
	mustEval(tb, w, `udf.Register("upper", func(s string) string { return strings.ToUpper(s) })`, false)
	mustEval(tb, w, `udf.Register("half", func(n int) (int, error) {
	if n%2 != 0 {
		panic("odd")
	}
	return n / 2, nil
})`, false)
	return w
}

func TestWorkerUDFList(t *testing.T) {
	w := startUDFWorker(t)
	list, err := w.UDFs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.String())
	}
	if want := "half func(int) (int, error), upper func(string) string"; strings.Join(got, ", ") != want {
		t.Errorf("UDFs() = %q; want %q", got, want)
	}
}

func TestWorkerCallUDF(t *testing.T) {
	w := startUDFWorker(t)
	tests := []struct {
		name, udf, in string
		out, errs     string
		failed        int
	}{
		{"lines", "upper", "a\nb\nc\n", "A\nB\nC\n", "", 0},
		{"no-final-newline", "upper", "x\ny", "X\nY\n", "", 0},
		{"empty-input", "upper", "", "", "", 0},
		{"failures-name-the-record", "half", "[2]\n[3]\n[4]\n", "1\n2\n", "record 2: panic: odd\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			failed, err := w.CallUDF(context.Background(), tt.udf, strings.NewReader(tt.in), &out, &errs)
			if err != nil || failed != tt.failed || out.String() != tt.out || errs.String() != tt.errs {
				t.Errorf("got %q, %q, failed %d, %v; want %q, %q, failed %d", out.String(), errs.String(), failed, err, tt.out, tt.errs, tt.failed)
			}
		})
	}
	mustEval(t, w, "1", false) // the protocol is ready for the next request
}

func TestWorkerCallUDFStreamsManyInOrder(t *testing.T) {
	w := startUDFWorker(t)
	n := 200000
	if raceBuild {
		n = 20000
	}
	var in, want bytes.Buffer
	for i := range n {
		fmt.Fprintf(&in, "r%d\n", i)
		fmt.Fprintf(&want, "R%d\n", i)
	}
	var out bytes.Buffer
	failed, err := w.CallUDF(context.Background(), "upper", &in, &out, io.Discard)
	if err != nil || failed != 0 || !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Errorf("%d records: %d bytes out, failed %d, %v; want %d bytes in order", n, out.Len(), failed, err, want.Len())
	}
}

func TestWorkerCallUDFErrors(t *testing.T) {
	w := startUDFWorker(t)
	_, err := w.CallUDF(context.Background(), "nope", strings.NewReader("a\n"), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `no function "nope"`) {
		t.Errorf("unknown udf: %v; want an error naming it", err)
	}

	// Endless input: the call runs until interrupted, then the worker goes on.
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	go func() {
		for i := 0; i < 1000 && out.String() == ""; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, err = w.CallUDF(ctx, "upper", endless{}, out, io.Discard)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted call: %v; want context.Canceled", err)
	}
	mustEval(t, w, "1", false)
	var res bytes.Buffer
	if _, err := w.CallUDF(context.Background(), "upper", strings.NewReader("ok\n"), &res, io.Discard); err != nil || res.String() != "OK\n" {
		t.Errorf("call after the interrupt: %q, %v; want OK", res.String(), err)
	}
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "ab\n"[i%3]
	}
	return len(p), nil
}
