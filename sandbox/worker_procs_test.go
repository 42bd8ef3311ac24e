package sandbox

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// A worker runs on one P until its first UDF call, then on the runtime's
// default; the session's own goroutines keep it on one (worker_procs.go).
func TestWorkerProcsRise(t *testing.T) {
	tests := []struct {
		name  string
		raise func(t *testing.T, w *Worker)
		rises bool
	}{
		{"udf-call", func(t *testing.T, w *Worker) {
			if _, err := w.CallUDF(context.Background(), "upper", strings.NewReader("a\n"), io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"go-statement", func(t *testing.T, w *Worker) {
			mustEval(t, w, "done := make(chan bool); go func() { done <- true }(); <-done", false)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, out := startWorker(t, "", WorkerOptions{})
			procs := func() string {
				t.Helper()
				before := len(out.String())
				mustEval(t, w, "runtime.GOMAXPROCS(0)", true)
				return strings.TrimSpace(out.String()[before:])
			}
			mustEval(t, w, `import ("runtime"; "strings"; "udf")`, false)
			mustEval(t, w, `udf.Register("upper", func(s string) string { return strings.ToUpper(s) })`, false)
			if got := procs(); got != "1" {
				t.Fatalf("GOMAXPROCS at first = %s; want 1", got)
			}
			tt.raise(t, w)
			got := procs()
			if !tt.rises {
				if got != "1" {
					t.Errorf("GOMAXPROCS after = %s; want 1", got)
				}
				return
			}
			if os.Getenv("GOMAXPROCS") != "" {
				t.Logf("GOMAXPROCS set for the test (%s): the default is not known here; the worker's is %s", os.Getenv("GOMAXPROCS"), got)
				return
			}
			if want := strconv.Itoa(runtime.GOMAXPROCS(0)); got != want {
				t.Errorf("GOMAXPROCS after = %s; want the default, %s", got, want)
			}
		})
	}
}
