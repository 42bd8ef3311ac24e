package repl

import (
	"sync"
	"testing"
)

// writes records each Write to it.
type writes struct {
	mu  sync.Mutex
	all []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, string(p))
	return len(p), nil
}

// A fast cell's echo and value leave with the prompt, in one write, and
// the linger's timer is stopped then: it has nothing left to send.
func TestPromptDisarmsLinger(t *testing.T) {
	out := &writes{}
	c := &crlfWriter{w: out}
	c.setLinger(true)
	c.replaceHeld([]byte("40+2\n"))
	c.Write([]byte("42\n"))
	c.mu.Lock()
	armed := c.linger.armed
	c.mu.Unlock()
	if !armed {
		t.Fatal("the echo's linger is not armed")
	}
	c.setLinger(false)
	c.Write([]byte(Prompt))
	c.mu.Lock()
	armed = c.linger.armed
	c.mu.Unlock()
	out.mu.Lock()
	got := out.all
	out.mu.Unlock()
	if want := "40+2\r\n42\r\n" + Prompt; len(got) != 1 || got[0] != want {
		t.Errorf("writes %q; want one: %q", got, want)
	}
	if armed {
		t.Error("the linger's timer is still armed after the prompt sent everything")
	}
	if c.linger.timer.Stop() {
		t.Error("the linger's timer was still set to fire")
	}
}
