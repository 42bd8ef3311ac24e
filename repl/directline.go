package repl

import (
	"errors"
	"sync"

	"github.com/chzyer/readline"
)

// A line that arrives whole at the prompt does not go through readline at
// all. wholeLine already spares it readline's rune-by-rune repaints, but
// each cell still cost readline three repaints (the prompt at the start of
// Readline, the line's end and its newline at Enter, each a clean and a
// paint, each with a new 4 KiB bufio.Writer) and two goroutine hand-offs
// (readline's reader to its loop, its loop to Readline): about a fifth of
// the host's CPU per cell. So the loop shows the prompt itself and waits
// for the input filter's queue; a whole line at its head (wholeLine's
// rule) is the cell, and anything else (a key, an escape sequence, a
// paste's Enter, the end of input) is left queued for a Readline, which
// draws the prompt again, as its first paint always does, and reads it.
//
// The line is the next one only if readline holds no input: its reader
// stops after Enter, Ctrl-C and Ctrl-D and reads again only when a
// Readline asks (see wholeLine), so after a Readline that returned a line
// or an interrupt it is parked and its buffer is empty, unless its last
// read held a key after the stop (dirty). As a guard, a Read by readline
// since that Readline returned (counted by the filter) or a reader not
// parked sends the line to readline too.

// directWait is the state of the loop's own wait at the prompt.
type directWait struct {
	mu      sync.Mutex // guards prompt; held while writing over the prompt
	prompt  string     // shown while the loop waits itself; "" when not
	reads   uint64     // the filter's read count when the last Readline returned
	stopped bool       // a Readline returned io.EOF or an error: readline only
	shown   bool       // directLine showed the prompt the next Readline draws again
}

// takeLine pops the line at the head of the queue if it is whole and
// readline has read nothing since it had reads reads. wait says the queue
// is empty (and may still bring one); neither: leave it to readline.
func (f *inputFilter) takeLine(reads uint64) (line string, ok, wait bool) {
	f.queueMu.Lock()
	defer f.queueMu.Unlock()
	if f.reads != reads || f.eof {
		return "", false, false
	}
	if len(f.queue) == 0 {
		return "", false, true
	}
	head := f.queue[0]
	if head == nil || !isWholeLine(head) {
		return "", false, false
	}
	f.queue[0] = nil
	f.queue = f.queue[1:]
	f.queuedBytes -= len(head)
	return string(head[:len(head)-1]), true, false
}

// readCount is how many Reads readline made that returned input.
func (f *inputFilter) readCount() uint64 {
	f.queueMu.Lock()
	defer f.queueMu.Unlock()
	return f.reads
}

// directLine shows prompt and waits for a whole line without readline;
// ok is false when what came (or readline's state) needs a Readline, with
// the prompt already shown.
func (it *interaction) directLine(prompt string) (string, bool) {
	if it.direct.stopped || it.whole.dirty.Load() || it.rl.Terminal.IsReading() {
		return "", false
	}
	if !it.out.atLineStart() {
		it.out.Write([]byte("\n"))
	}
	it.direct.mu.Lock()
	it.direct.prompt = prompt
	it.out.Write([]byte(cleanRow + prompt)) // what readline's first paint writes
	it.direct.mu.Unlock()
	it.saveDueHistory() // the prompt is out: the client reads it meanwhile
	it.direct.shown = true
	defer func() {
		it.direct.mu.Lock()
		it.direct.prompt = ""
		it.direct.mu.Unlock()
	}()
	for {
		line, ok, wait := it.filter.takeLine(it.direct.reads)
		if !wait {
			it.direct.shown = !ok
			return line, ok
		}
		select {
		case <-it.filter.arrived:
		case <-it.filter.closed:
			return "", false
		case <-it.ctx.Done():
			return "", false
		}
	}
}

// readlineReturned notes readline's state after a Readline: err is what
// it returned.
func (it *interaction) readlineReturned(err error) {
	it.direct.reads = it.filter.readCount()
	if err != nil && !errors.Is(err, readline.ErrInterrupt) {
		it.direct.stopped = true
	}
}

// aboveDirectPrompt writes code output (a goroutine's, at the prompt)
// above the prompt the loop shows, as readline does above the line it
// edits; false when the loop does not wait itself.
func (it *interaction) aboveDirectPrompt(p []byte) bool {
	it.direct.mu.Lock()
	defer it.direct.mu.Unlock()
	if it.direct.prompt == "" {
		return false
	}
	b := make([]byte, 0, len(cleanRow)+len(p)+1+len(it.direct.prompt))
	b = append(append(b, cleanRow...), p...)
	if len(p) > 0 && p[len(p)-1] != '\n' {
		b = append(b, '\n')
	}
	it.out.Write(append(b, it.direct.prompt...))
	return true
}

// redrawDirectPrompt draws the prompt again after a resize, as readline's
// Refresh would; false when the loop does not wait itself.
func (it *interaction) redrawDirectPrompt() bool {
	it.direct.mu.Lock()
	defer it.direct.mu.Unlock()
	if it.direct.prompt == "" {
		return false
	}
	it.out.Write([]byte(cleanRow + it.direct.prompt))
	return true
}
