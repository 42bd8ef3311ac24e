package repl

import "sync/atomic"

// wholeLine lets a line that arrives whole skip readline: plain ASCII
// ending in Enter, read by readline in one read at the start of an empty
// line, as expect, a pipeline or a fast client sends it. readline (v1.5.1)
// would insert it rune by rune, painting the whole line again for each
// (in memory: crlfWriter holds those paints, but building them was a fifth
// of the host's CPU per cell). Instead readline is given the Enter alone,
// which returns an empty line; the loop takes the text from here, drops
// readline's paint of that Enter and echoes the line once. The screen ends
// as readline would leave it: the line after the prompt, the cursor on the
// next row.
//
// The line is readline's next one only if nothing else is in its buffer:
// fresh says a Readline began (its buffer is empty) and readline has read
// nothing since; dirty says readline's reader may hold bytes of an earlier
// read. readline's reader stops after Enter, Ctrl-C and Ctrl-D and reads
// again only when asked (a new Readline, or Ctrl-D that deleted a rune), so
// a read that ended with one of those and held no other left nothing.
type wholeLine struct {
	fresh atomic.Bool            // set by the loop before each Readline
	dirty atomic.Bool            // written by readline's reader goroutine only
	text  atomic.Pointer[string] // the line readline's next Enter ends
}

// begin is the loop starting a Readline.
func (w *wholeLine) begin() {
	w.text.Store(nil)
	w.fresh.Store(true)
}

// take returns the line that stood for the empty one Readline returned.
func (w *wholeLine) take() (string, bool) {
	p := w.text.Swap(nil)
	if p == nil {
		return "", false
	}
	return *p, true
}

// read is readline's reader seeing b: it returns what readline is given,
// b or its final Enter alone. inEscape says an escape sequence is open.
func (w *wholeLine) read(b []byte, inEscape bool) []byte {
	first := w.fresh.Swap(false)
	if len(b) == 0 {
		return b
	}
	if first && !w.dirty.Load() && !inEscape && isWholeLine(b) {
		text := string(b[:len(b)-1])
		w.text.Store(&text)
		b[0] = b[len(b)-1]
		b = b[:1]
	}
	w.dirty.Store(hasStopKey(b[:len(b)-1]))
	return b
}

// isWholeLine reports printable ASCII (at least one byte) and a final
// Enter (CR or LF): no key that edits, completes or moves.
func isWholeLine(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	if last := b[len(b)-1]; last != '\r' && last != '\n' {
		return false
	}
	for _, x := range b[:len(b)-1] {
		if x < 0x20 || x > 0x7e {
			return false
		}
	}
	return true
}

// hasStopKey reports a key after which readline's reader stops reading
// (Enter, Ctrl-J, Ctrl-C, Ctrl-D): bytes after it wait in its buffer.
func hasStopKey(b []byte) bool {
	for _, x := range b {
		switch x {
		case '\r', '\n', ctrlC, 0x04:
			return true
		}
	}
	return false
}
