package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
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

// goPanicCells are cells whose goroutine panics, with what the session's
// stderr must show.
var goPanicCells = []struct{ name, cell, want string }{
	{"func-literal", `go func() { panic("boom") }()`, "panic: boom\n\ngoroutine [running]:"},
	{"declared-func", "import \"fmt\"\nfunc work(n int) { panic(fmt.Sprint(\"work \", n)) }\ngo work(3)", "panic: work 3\n"},
	{"os-exit", "import \"os\"\ngo func() { os.Exit(3) }()", "error: os.Exit(3) called in a goroutine: only the goroutine ended\n"},
	{"runtime-error", "go func() { var m map[string]int; m[\"a\"] = 1 }()", "panic: assignment to entry in nil map"},
}

// In the host (inproc mode) a panic in a goroutine of the session's code is
// reported on the session's stderr as Go reports it and ends only that
// goroutine: yaegi would let it unwind and end the process, the host with
// every session. (In a worker it still ends the worker, as it ends a Go
// program: TestWorkerCrashBetweenCells.) The cells run in a child test
// process: yaegi v0.16.1 itself races (run.go:1922, a goroutine's end
// against the next Eval), which a race-built test would report as ours;
// the child ignores race reports (GORACE exitcode=0) and prints a line per
// step, which this test checks.
func TestGoroutinePanicIsReportedAndTheProcessGoesOn(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoroutinePanicChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GOPANIC_CHILD=1", "GORACE=exitcode=0")
	out, _ := cmd.CombinedOutput()
	for _, c := range goPanicCells {
		for _, step := range []string{"reported", "went on"} {
			if want := "gopanic " + c.name + " " + step + "\n"; !strings.Contains(string(out), want) {
				t.Errorf("%s: no %q from the child; its output:\n%s", c.name, want, tail(string(out), 4000))
			}
		}
	}
}

// TestGoroutinePanicChild is TestGoroutinePanicIsReportedAndTheProcessGoesOn's child.
func TestGoroutinePanicChild(t *testing.T) {
	if os.Getenv("GOPANIC_CHILD") == "" {
		t.Skip("the child of TestGoroutinePanicIsReportedAndTheProcessGoesOn")
	}
	for _, c := range goPanicCells {
		out := &signalBuffer{more: make(chan struct{}, 1)}
		in, err := NewInterp(Options{Dir: t.TempDir(), Stdout: out, Stderr: out})
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Eval(context.Background(), c.cell, true); err != nil {
			t.Fatalf("%s: cell: %v", c.name, err)
		}
		out.waitFor(t, c.want)
		fmt.Printf("gopanic %s reported\n", c.name)
		if err := in.Eval(context.Background(), "41 + 1", true); err != nil {
			t.Fatalf("%s: cell after the panic: %v", c.name, err)
		}
		out.waitFor(t, "42")
		fmt.Printf("gopanic %s went on\n", c.name)
		in.Close()
	}
}
