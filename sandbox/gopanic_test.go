package sandbox

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// signalBuffer is a Buffer safe for a goroutine of the session's code to
// write while the test waits for what it wrote.
type signalBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	more chan struct{}
}

func (s *signalBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	select {
	case s.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

// waitFor waits until the output holds want, bounded.
func (s *signalBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		got := s.b.String()
		s.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("output %q; want it to hold %q", got, want)
		}
	}
}

// In the host (inproc mode) a panic in a goroutine of the session's code is
// reported on the session's stderr as Go reports it and ends only that
// goroutine: yaegi would let it unwind and end the process, the host with
// every session. (In a worker it still ends the worker, as it ends a Go
// program: TestWorkerCrashBetweenCells.)
func TestGoroutinePanicIsReportedAndTheProcessGoesOn(t *testing.T) {
	cells := []struct{ name, cell, want string }{
		{"func-literal", `go func() { panic("boom") }()`, "panic: boom\n\ngoroutine [running]:"},
		{"declared-func", "import \"fmt\"\nfunc work(n int) { panic(fmt.Sprint(\"work \", n)) }\ngo work(3)", "panic: work 3\n"},
		{"os-exit", "import \"os\"\ngo func() { os.Exit(3) }()", "error: os.Exit(3) called in a goroutine: only the goroutine ended\n"},
		{"runtime-error", "go func() { var m map[string]int; m[\"a\"] = 1 }()", "panic: assignment to entry in nil map"},
	}
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			out := &signalBuffer{more: make(chan struct{}, 1)}
			in, err := NewInterp(Options{Dir: t.TempDir(), Stdout: out, Stderr: out})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if err := in.Eval(context.Background(), c.cell, true); err != nil {
				t.Fatalf("cell: %v", err)
			}
			out.waitFor(t, c.want)
			if err := in.Eval(context.Background(), "41 + 1", true); err != nil {
				t.Fatalf("cell after the panic: %v", err)
			}
			out.waitFor(t, "42")
		})
	}
}
