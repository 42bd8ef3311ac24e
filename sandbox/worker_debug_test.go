package sandbox

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// runtime/debug's knobs act on the process that calls them, and
// testing.Main exits it: a session's own worker may use them, the host's
// interpreters (inproc) may not.
func TestRuntimeDebugAndTestingMainOnlyInAWorker(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, `import "runtime/debug"`, false)
	mustEval(t, w, `debug.SetGCPercent(50)`, false)
	mustEval(t, w, `debug.SetGCPercent(100)`, true)
	mustEval(t, w, `debug.SetMaxStack(1 << 20)`, true)
	want := "50\n" + strconv.Itoa(maxStack(testMemory)) + "\n"
	if got := out.String(); got != want {
		t.Errorf("worker: shown %q; want %q (the previous settings)", got, want)
	}
	if err := w.Eval(context.Background(), "_ = debug.WriteHeapDump", false); err == nil || !strings.Contains(err.Error(), "no symbol WriteHeapDump") {
		t.Errorf("debug.WriteHeapDump in a worker: %v; want no such symbol (it takes a descriptor number)", err)
	}
	tables := NewAllowlist(nil).InWorker().Exports()
	if tables["runtime/debug/debug"] == nil {
		t.Fatal("the worker's tables have no runtime/debug")
	}
	for _, name := range []string{"WriteHeapDump", "SetCrashOutput"} {
		if _, ok := tables["runtime/debug/debug"][name]; ok {
			t.Errorf("debug.%s is offered to the code", name)
		}
	}

	in, _ := newTestInterp(t)
	err := in.Eval(context.Background(), `import "runtime/debug"`, false)
	if err == nil || !strings.Contains(err.Error(), "package runtime/debug is not allowed") {
		t.Errorf("inproc: import runtime/debug: %v; want it refused", err)
	}
	// testing.Main calls os.Exit itself: in the host that would end it.
	err = in.Eval(context.Background(), "import \"testing\"\n_ = testing.Main", false)
	if err == nil || !strings.Contains(err.Error(), "no symbol Main") {
		t.Errorf("inproc: testing.Main: %v; want no such symbol", err)
	}
}

// The worker's own memory settings are the session's to change; the
// cgroup still caps the worker: no memory limit, no collection and an
// unbounded stack end at the cap, not in the host.
func TestWorkerMemoryCapHoldsWhateverTheDebugKnobs(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	w, _ := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, "import (\"math\"; \"runtime/debug\")\ndebug.SetMemoryLimit(math.MaxInt64)\ndebug.SetGCPercent(-1)\ndebug.SetMaxStack(1 << 40)", false)
	err := w.Eval(context.Background(), "func deep(n int) int { var pad [256]int; pad[n%256] = n; return deep(n+1) + pad[0] }\ndeep(0)", false)
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Reason != "killed at memory cap 256MiB" {
		t.Errorf("err = %v; want a crash killed at memory cap 256MiB", err)
	}
}
