package repl_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

// TestWholeLineKeepsEditing sends lines whole, as expect does, mixed with
// editing keys and history: a burst holding an editing key is edited as
// typed, and a line that arrived whole is in the history (Up recalls it).
func TestWholeLineKeepsEditing(t *testing.T) {
	m := newManager(t, t.TempDir(), newClock(), &evaluators{})
	s, err := m.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	in, typing := io.Pipe()
	out := &writeLog{more: make(chan struct{}, 1)}
	done := make(chan int, 1)
	go func() {
		done <- s.Interact(context.Background(), repl.Terminal{In: in, Out: out, Width: 80, History: t.TempDir() + "/history"})
	}()
	out.waitFor(t, repl.Prompt)

	steps := []struct {
		send, want string
		n          int // times want is on the screen after send
	}{
		{"a := 20\r", repl.Prompt, 2},
		{"b := a + 1x\x7f\r", "b := a + 1\r\n", 1}, // Backspace in the burst
		{"b*2\r", "\r\n42\r\n", 1},
		{"\x1b[A\r", "\r\n42\r\n", 2},                       // Up: b*2 again
		{"\x1b[A\x1b[A\x01\x1b[3~c\r", "c := a + 1\r\n", 1}, // b := a + 1 recalled, its b replaced by c
		{"c\r", "\r\n21\r\n", 1},
	}
	for _, st := range steps {
		io.WriteString(typing, st.send)
		out.waitForN(t, st.want, st.n)
	}
	if screen := out.all(); strings.Contains(screen, "error") {
		t.Errorf("an error on the screen: %q", screen)
	}
	typing.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Interact did not end at the end of input")
	}
}

// TestFastCellIsOneWrite: a line that arrives whole, its value and the
// next prompt go out in one write (one SSH packet) when the cell is done
// before the output's linger ends (here never: the prompt sends it).
func TestFastCellIsOneWrite(t *testing.T) {
	defer repl.SetOutputLinger(time.Hour)()
	_, typing, out, done := interactPipe(t)
	out.mu.Lock()
	before := len(out.writes)
	out.mu.Unlock()
	io.WriteString(typing, "40+2\r")
	out.waitFor(t, "\r\n42\r\n")
	out.waitForN(t, repl.Prompt, 2)
	out.mu.Lock()
	writes := append([]string(nil), out.writes[before:]...)
	out.mu.Unlock()
	if len(writes) != 1 || !strings.HasPrefix(writes[0], "40+2\r\n42\r\n") || !strings.Contains(writes[0], repl.Prompt) {
		t.Errorf("writes %q; want one: echo, value, prompt", writes)
	}
	typing.Close()
	<-done
}

// TestSlowCellIsOneWrite: a whole line's echo waits for the cell's value
// past outputLinger (a cell slower than it, as most are with a thousand
// sessions at once), so that echo, value and prompt still go out as one
// write; here the echo's linger never ends and the output's is a
// nanosecond, so only the echo's wait can keep them together.
func TestSlowCellIsOneWrite(t *testing.T) {
	defer repl.SetOutputLinger(time.Nanosecond)()
	defer repl.SetEchoLinger(time.Hour)()
	_, typing, out, done := interactPipe(t)
	io.WriteString(typing, "import \"time\"\r")
	out.waitForN(t, repl.Prompt, 2)
	out.mu.Lock()
	before := len(out.writes)
	out.mu.Unlock()
	io.WriteString(typing, "time.Sleep(30 * time.Millisecond); 40+2\r")
	out.waitFor(t, "\r\n42\r\n")
	out.waitForN(t, repl.Prompt, 3)
	out.mu.Lock()
	writes := append([]string(nil), out.writes[before:]...)
	out.mu.Unlock()
	if len(writes) == 0 || !strings.HasPrefix(writes[0], "time.Sleep(30 * time.Millisecond); 40+2\r\n") || !strings.Contains(writes[0], "42") {
		t.Errorf("writes %q; want the echo to go out with the value", writes)
	}
	typing.Close()
	<-done
}

// TestEchoShowsWhileCellRuns: the echo of a line that arrived whole shows
// while its cell runs silently (its linger ends), and Ctrl-C stops the
// cell.
func TestEchoShowsWhileCellRuns(t *testing.T) {
	_, typing, out, done := interactPipe(t)
	io.WriteString(typing, "<-make(chan int)\r")
	out.waitFor(t, "<-make(chan int)\r\n")
	io.WriteString(typing, "\x03")
	out.waitFor(t, "interrupted")
	typing.Close()
	<-done
}

// TestSlowCellOutputShows: what a running cell prints reaches the terminal
// while it runs (the linger's timer sends it), and Ctrl-C still stops it.
func TestSlowCellOutputShows(t *testing.T) {
	_, typing, out, done := interactPipe(t)
	io.WriteString(typing, "import \"fmt\"\r")
	io.WriteString(typing, "fmt.Println(\"early\"); <-make(chan int)\r")
	out.waitFor(t, "early\r\n")
	io.WriteString(typing, "\x03")
	out.waitFor(t, "interrupted")
	typing.Close()
	<-done
}

// interactPipe runs a new session of alice on a pipe terminal.
func interactPipe(t *testing.T) (*repl.Session, io.WriteCloser, *writeLog, chan int) {
	t.Helper()
	m := newManager(t, t.TempDir(), newClock(), &evaluators{})
	s, err := m.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	in, typing := io.Pipe()
	out := &writeLog{more: make(chan struct{}, 1)}
	done := make(chan int, 1)
	go func() { done <- s.Interact(context.Background(), repl.Terminal{In: in, Out: out, Width: 80}) }()
	out.waitFor(t, repl.Prompt)
	return s, typing, out, done
}
