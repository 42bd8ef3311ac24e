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
// default (worker_procs.go).
func TestWorkerProcsRiseForUDF(t *testing.T) {
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
		t.Fatalf("GOMAXPROCS before a UDF call = %s; want 1", got)
	}
	if _, err := w.CallUDF(context.Background(), "upper", strings.NewReader("a\n"), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := procs()
	if os.Getenv("GOMAXPROCS") != "" {
		t.Logf("GOMAXPROCS set for the test (%s): the default is not known here; the worker's is %s", os.Getenv("GOMAXPROCS"), got)
		return
	}
	if want := strconv.Itoa(runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("GOMAXPROCS after a UDF call = %s; want the default, %s", got, want)
	}
}
