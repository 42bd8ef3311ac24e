package sandbox

import (
	"context"
	"errors"
	"testing"
)

// Replay runs a journal in one message and stops at the first failing cell,
// saying which; the cells before it are in place.
func TestWorkerReplay(t *testing.T) {
	w, out := startWorker(t, t.TempDir(), WorkerOptions{})
	cells := []string{"x := 40", "func g() int { return x + 2 }", `import "fmt"; fmt.Println("not shown")`, "nope()", "x = 0"}
	n, err := w.Replay(context.Background(), cells)
	var ev *EvalError
	if n != 3 || !errors.As(err, &ev) {
		t.Fatalf("Replay = %d, %v; want 3 and the error of cell 4", n, err)
	}
	mustEval(t, w, "g()", true)
	if got := out.String(); got != "not shown\n42\n" {
		// Output of a replay is the caller's to discard (repl points the
		// session's writers nowhere while it replays).
		t.Errorf("output %q; want the replayed cell's print, then 42", got)
	}
	if n, err := w.Replay(context.Background(), nil); n != 0 || err != nil {
		t.Errorf("empty Replay = %d, %v", n, err)
	}
}

// os.MkdirTemp("", ...) works in a worker: its temporary directory is the
// session's tmp/, not /tmp (which Landlock refuses).
func TestWorkerTempDir(t *testing.T) {
	w, out := startWorker(t, t.TempDir(), WorkerOptions{})
	mustEval(t, w, `import "os"; import "strings"; d, err := os.MkdirTemp("", "x"); if err != nil { panic(err) }; strings.HasSuffix(os.TempDir(), "/tmp") && strings.HasPrefix(d, os.TempDir())`, true)
	if got := out.String(); got != "true\n" {
		t.Errorf("got %q; want true", got)
	}
}
