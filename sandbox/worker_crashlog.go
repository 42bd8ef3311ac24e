package sandbox

import (
	"bytes"
	"slices"
	"strings"
	"sync"
)

const (
	crashTailBytes = 8 << 10 // the last bytes of the worker's own output kept
	crashLineBytes = 512     // longer lines are cut when looking for a reason
)

// reasonPrefixes are the lines of the Go runtime that explain a crash, the
// more telling first: a stack overflow prints its limit before
// "fatal error: stack overflow"; an out-of-memory prints the allocation
// after "fatal error: out of memory"; a fatal signal the runtime does not
// turn into a panic (runtime.Breakpoint's) prints "SIGTRAP: trace trap"
// before its register dump.
var reasonPrefixes = []string{
	"runtime: goroutine stack exceeds",
	"fatal error: ",
	"panic: ",
	signalPrefix,
	"runtime: out of memory",
}

const signalPrefix = "SIG"

// crashLog takes the worker's own stderr (its fd 2: the Go runtime's crash
// reports, and what compiled code writes there) and keeps the line that
// best explains a crash plus the last few KiB. It is safe for concurrent
// use.
type crashLog struct {
	mu      sync.Mutex
	partial []byte // the current line so far, at most crashLineBytes
	reason  string // the best reason line seen
	rank    int    // index in reasonPrefixes of reason; len(reasonPrefixes) if none
	tail    []byte // the last crashTailBytes
}

func newCrashLog() *crashLog { return &crashLog{rank: len(reasonPrefixes)} }

func (c *crashLog) Write(p []byte) (n int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// This runs on os/exec's copying goroutine with what the worker
	// wrote: a panic here would end the host.
	defer func() {
		if v := recover(); v != nil {
			n, err = len(p), nil
		}
	}()
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - crashTailBytes; over > 0 {
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	for rest := p; len(rest) > 0; {
		line, after, full := bytes.Cut(rest, []byte{'\n'})
		if room := crashLineBytes - len(c.partial); room > 0 {
			c.partial = append(c.partial, line[:min(len(line), room)]...)
		}
		if !full {
			break
		}
		c.consider(string(c.partial))
		c.partial = c.partial[:0]
		rest = after
	}
	return len(p), nil
}

func (c *crashLog) consider(line string) {
	for i, prefix := range reasonPrefixes[:c.rank] {
		if strings.HasPrefix(line, prefix) && (prefix != signalPrefix || isSignalLine(line)) {
			c.reason, c.rank = strings.TrimSpace(line), i
			return
		}
	}
}

// sawCrash reports whether the Go runtime reported a crash (a line of
// reasonPrefixes, or a fatal signal).
func (c *crashLog) sawCrash() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rank < len(reasonPrefixes)
}

// Reason returns the line that best explains a crash, or the last line the
// worker wrote, or "".
func (c *crashLog) Reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason != "" {
		return c.reason
	}
	if len(c.partial) > 0 {
		return strings.TrimSpace(string(c.partial))
	}
	lines := strings.Split(strings.TrimSpace(string(c.tail)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Tail returns the last bytes the worker wrote.
func (c *crashLog) Tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.tail)
}

// isSignalLine reports whether line is the runtime's report of a fatal
// signal: "SIGTRAP: trace trap", "SIGSEGV: segmentation violation".
func isSignalLine(line string) bool {
	name, _, ok := strings.Cut(line, ": ")
	return ok && slices.Contains(fatalSignals, name)
}

// fatalSignals are the signals whose report the runtime starts with the
// signal's name when it dies of them.
var fatalSignals = []string{"SIGABRT", "SIGBUS", "SIGFPE", "SIGILL", "SIGQUIT", "SIGSEGV", "SIGSYS", "SIGTRAP"}
