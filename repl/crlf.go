package repl

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// crlfWriter is the terminal side of an SSH PTY: there is no kernel line
// discipline to turn "\n" into "\r\n", so it is done here. It also
// serializes writes from the code, the prompt and the loop.
//
// It also sends a line that arrives whole as one write with one repaint,
// instead of a repaint and a write per rune (readline v1.5.1 repaints the
// whole line for every rune it takes): while more runes of plain input
// are already read by readline (ahead), its repaints are held; a repaint
// of one row replaces the held one before it; the next write that is not
// held sends them.
type crlfWriter struct {
	mu     sync.Mutex // guards w, lastCR, held and clean
	w      io.Writer
	lastCR bool
	held   bytes.Buffer
	clean  int          // 1 + where in held the last one-row repaint began; 0: none
	ahead  atomic.Int64 // plain runes readline has read and not yet taken, +1 for a line's end
	enter  atomic.Bool  // ahead holds the +1 of a line's end, cleared by flushHeld
	// midLine: the last byte written was not a newline (fmt.Print("abc")),
	// so the next prompt must start on a line of its own (guarded by mu).
	midLine bool
	linger  lingerState // guarded by mu (linger.go)
}

// atLineStart reports whether the cursor is at the start of a line, as
// far as what was written says.
func (c *crlfWriter) atLineStart() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.midLine
}

// cleanRow is how readline begins repainting a line of one row: clear
// below, clear the row, back to its start. A held repaint that began so
// is wholly overwritten by the next one.
const cleanRow = "\x1b[J\x1b[2K\r"

func (c *crlfWriter) Write(p []byte) (int, error) { return c.write(p, false) }

func (c *crlfWriter) write(p []byte, repaint bool) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeLocked(p, repaint, false)
}

// writeLocked writes p: a repaint of readline's, a whole line's echo, or
// anything else (output, prompts, messages).
func (c *crlfWriter) writeLocked(p []byte, repaint, echo bool) (int, error) {
	out := &c.held
	// readline's Refresh clears the row and paints it in two writes: the
	// clear waits for the paint, so that they go out as one.
	hold := repaint && (c.ahead.Load() > 0 || string(p) == cleanRow)
	switch {
	case hold && string(p) == cleanRow:
		if c.clean > 0 {
			out.Truncate(c.clean - 1)
		}
		c.clean = out.Len() + 1
	case !repaint || bytes.IndexByte(p, '\x1b') >= 0:
		c.clean = 0 // something else than a row's text: keep what came before
	}
	lingers := !repaint && c.linger.on
	if len(p) > 0 {
		c.midLine = p[len(p)-1] != '\n'
	}
	out.Grow(len(p) + 16)
	for _, b := range p {
		if b == '\n' && !c.lastCR {
			out.WriteByte('\r')
		}
		out.WriteByte(b)
		c.lastCR = b == '\r'
	}
	if hold {
		return len(p), nil
	}
	if lingers {
		c.lingerLocked(echo)
		return len(p), nil
	}
	_, err := c.w.Write(out.Bytes())
	out.Reset()
	c.clean = 0
	c.linger.held = false
	c.disarmLocked()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushHeld sends what is held: readline returned the line (or, in a
// mode where Enter returns nothing, asks for more input).
func (c *crlfWriter) flushHeld() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead.Store(0)
	c.enter.Store(false)
	c.clean = 0
	if c.held.Len() > 0 {
		c.w.Write(c.held.Bytes())
		c.held.Reset()
	}
	c.linger.held = false
	c.disarmLocked()
}

// replaceHeld sends p instead of what is held: readline's paints of the
// bare Enter that stood for a whole line (see wholeLine).
func (c *crlfWriter) replaceHeld(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead.Store(0)
	c.enter.Store(false)
	c.clean = 0
	c.held.Reset()
	c.writeLocked(p, false, true)
}

// tookRune is readline taking one rune of its input.
func (c *crlfWriter) tookRune() {
	if c.ahead.Add(-1) < 0 {
		c.ahead.Store(0)
	}
}

// repaints is the writer readline draws the line with.
type repaints struct{ c *crlfWriter }

func (r repaints) Write(p []byte) (int, error) { return r.c.write(p, true) }

// countingInput is readline's input. A read of printable ASCII (a final
// Enter allowed) outside an escape sequence becomes exactly one rune per
// byte in readline, each taken (tookRune) after the read: it adds them to
// ahead, and one more for a final Enter, whose repaints (readline paints
// the line twice more) are held until the loop has the line. Anything else
// (control keys, escape sequences, UTF-8) is not counted, and its repaints
// go out as they come.
type countingInput struct {
	r     io.ReadCloser
	c     *crlfWriter
	esc   *escState
	whole *wholeLine // turns a whole line into a bare Enter
}

// escState is where readline's escape parser is, as far as the bytes show.
type escState struct{ s byte } // 0 outside, 1 after ESC, 2 in CSI, 3 after ESC O

func (in countingInput) Read(p []byte) (int, error) {
	if in.c.enter.Load() {
		in.c.flushHeld()
	}
	n, err := in.r.Read(p)
	n = len(in.whole.read(p[:n], in.esc.s != 0))
	if n > 0 {
		if in.esc.s == 0 && plainASCII(p[:n]) {
			if last := p[n-1]; last == '\r' || last == '\n' {
				in.c.enter.Store(true)
				in.c.ahead.Add(1)
			}
			in.c.ahead.Add(int64(n))
		}
		in.esc.advance(p[:n])
	}
	return n, err
}

func (in countingInput) Close() error { return in.r.Close() }

func (e *escState) advance(b []byte) {
	for _, x := range b {
		switch e.s {
		case 0:
			if x == 0x1b {
				e.s = 1
			}
		case 1:
			switch x {
			case '[':
				e.s = 2
			case 'O':
				e.s = 3
			default:
				e.s = 0
			}
		case 2:
			if x >= 0x40 && x <= 0x7e {
				e.s = 0
			}
		case 3:
			e.s = 0
		}
	}
}

func plainASCII(b []byte) bool {
	for i, x := range b {
		if x < 0x20 || x > 0x7e {
			return i == len(b)-1 && (x == '\r' || x == '\n')
		}
	}
	return true
}
