package repl_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

// writeLog records each Write a terminal gets, as an SSH channel would
// send each as its own packet.
type writeLog struct {
	mu     sync.Mutex
	writes []string
	more   chan struct{}
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, string(p))
	w.mu.Unlock()
	select {
	case w.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *writeLog) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.writes, "")
}

// waitFor waits until the output holds s; the bound only ends a broken test.
func (w *writeLog) waitFor(t *testing.T, s string) { t.Helper(); w.waitForN(t, s, 1) }

// waitForN waits until the output holds s n times.
func (w *writeLog) waitForN(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for strings.Count(w.all(), s) < n {
		select {
		case <-w.more:
		case <-deadline:
			t.Fatalf("no %q in %q", s, w.all())
		}
	}
}

// TestWholeLineIsOneRepaint types a line as one write, as a paste of a
// line or a fast client sends it: the terminal gets the line once, after
// the prompt, instead of a repaint of every prefix, each its own write.
func TestWholeLineIsOneRepaint(t *testing.T) {
	m := newManager(t, t.TempDir(), newClock(), &evaluators{})
	s, err := m.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	in, typing := io.Pipe()
	out := &writeLog{more: make(chan struct{}, 1)}
	done := make(chan int, 1)
	go func() { done <- s.Interact(context.Background(), repl.Terminal{In: in, Out: out, Width: 120}) }()
	out.waitFor(t, repl.Prompt)

	const line = "x := 40 + 2"
	out.mu.Lock()
	before := len(out.writes)
	out.mu.Unlock()
	io.WriteString(typing, line+"\r")
	io.WriteString(typing, "x\r")
	out.waitFor(t, "\r\n42\r\n")
	out.mu.Lock()
	typed := out.writes[before:]
	out.mu.Unlock()

	painted, prefixes := 0, 0
	for _, w := range typed {
		painted += strings.Count(w, line)
		if strings.Contains(w, line) && !strings.HasPrefix(w, line+"\r\n") {
			t.Errorf("the line is repainted, not echoed: %q", w)
		}
		for i := 1; i < len(line); i++ {
			if strings.Contains(w, repl.Prompt+line[:i]+"\x1b") || strings.HasSuffix(w, repl.Prompt+line[:i]) {
				prefixes++
			}
		}
	}
	if painted != 1 || prefixes != 0 {
		t.Errorf("line painted %d times, %d repaints of a prefix; want 1 and 0. Writes: %q", painted, prefixes, typed)
	}
	// On the screen, the line stands after the prompt.
	if screen := out.all(); !strings.Contains(screen, repl.Prompt+line+"\r\n") && !strings.Contains(screen, repl.Prompt+" \b"+line+"\r\n") {
		t.Errorf("no %q after the prompt: %q", line, screen)
	}
	// The cell ran: its value shows on the next line.
	if screen := out.all(); !strings.Contains(screen, "x\r\n42\r\n") {
		t.Errorf("no value of x after it: %q", out.all())
	}
	typing.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Interact did not end at the end of input")
	}
}
