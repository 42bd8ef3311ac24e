package repl

import (
	"bytes"
	"io"
	"strconv"
	"sync"

	"github.com/chzyer/readline"
)

// Where the cursor is on a line with wide (CJK) characters, wrapped or
// not: readline (v1.5.1) steps back from the line's end one column per rune
// and moves up a row where its count of runes crosses a multiple of the
// width, and cleans the line by moving up as many rows as that count
// gives; a wide rune takes two columns and, where only one is left in a
// row, starts the next. So the painter notes what it painted, and the
// writer in front of the terminal replaces readline's cursor moves (when
// they are exactly what readline computes for that line) by moves worked
// out from the terminal's layout.

// cursorState is what was last painted, shared by the painter and the
// writer; both run in readline's goroutine, the mutex makes it plain.
type cursorState struct {
	it *interaction

	mu      sync.Mutex
	line    []rune // the buffer, as readline has it
	shown   []rune // as painted (pasted newlines as ↵)
	pos     int
	pending bool // painted, its write not seen yet
}

// painted notes a paint of line (shown as shown) with the cursor at pos.
func (c *cursorState) painted(line, shown []rune, pos int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line = append(c.line[:0], line...)
	c.shown = append(c.shown[:0], shown...)
	c.pos = pos
	c.pending = true
}

// cursorFix is readline's Stdout: it mends readline's cursor moves, then
// writes on to w.
type cursorFix struct {
	c *cursorState
	w io.Writer
}

func (f cursorFix) Write(p []byte) (int, error) {
	if b, ok := f.c.mend(p); ok {
		if _, err := f.w.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return f.w.Write(p)
}

// mend rewrites a paint's trailing moves or a clean's moves up; ok is
// false when p is neither, or readline's moves are not the ones expected.
func (c *cursorState) mend(p []byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prompt, width := c.it.promptWidth(), int(c.it.width.Load())
	if width <= prompt || c.line == nil {
		return nil, false
	}
	if c.pending {
		c.pending = false
		if c.pos >= len(c.line) {
			return nil, false // readline moves nothing
		}
		seq := readlineBack(c.line, c.pos, prompt, width)
		if !bytes.HasSuffix(p, seq) {
			return nil, false
		}
		endRow, endCol := layout(c.shown, len(c.shown), prompt, width)
		if endCol >= width && lineAtEdge(c.line, prompt, width) {
			endRow++ // readline's " \b" took the cursor to the next row
		}
		row, col := layout(c.shown, c.pos, prompt, width)
		out := append(bytes.Clone(p[:len(p)-len(seq)]), '\r')
		if up := endRow - row; up > 0 {
			out = append(out, "\033["+strconv.Itoa(up)+"A"...)
		}
		if col > 0 {
			out = append(out, "\033["+strconv.Itoa(col)+"C"...)
		}
		return out, true
	}
	ups, ok := cleanUps(p)
	if !ok || ups != readlineRow(c.line, c.pos, prompt, width) {
		return nil, false
	}
	row, _ := layout(c.shown, c.pos, prompt, width)
	if c.pos >= len(c.line) {
		var col int
		row, col = layout(c.shown, len(c.shown), prompt, width)
		if col >= width && lineAtEdge(c.line, prompt, width) {
			row++
		}
	}
	out := []byte("\033[J")
	for range row {
		out = append(out, "\033[2K\r\033[A"...)
	}
	return append(out, "\033[2K\r"...), true
}

// layout is where the terminal puts the cell of rs[n] (or, for n ==
// len(rs), the cursor after the line): row from the prompt's row, column.
// A rune wider than what is left of a row starts the next one.
func layout(rs []rune, n, prompt, width int) (row, col int) {
	col = prompt
	for i, r := range rs {
		w := readline.Runes{}.Width(r)
		if col+w > width {
			row, col = row+1, 0
		}
		if i == n {
			return row, col
		}
		col += w
	}
	return row, col
}

// readlineBack is the sequence readline writes after a paint to step the
// cursor back from the line's end to pos (RuneBuffer.getBackspaceSequence).
func readlineBack(line []rune, pos, prompt, width int) []byte {
	sep := map[int]bool{}
	total := columns(line)
	for i := 0; i < total; {
		if i == 0 {
			i -= prompt
		}
		i += width
		sep[i] = true
	}
	var b []byte
	for i := len(line); i > pos; i-- {
		b = append(b, '\b')
		if sep[i] {
			b = append(b, "\033[A\r\033["+strconv.Itoa(width)+"C"...)
		}
	}
	return b
}

// readlineRow is the row readline thinks the cursor is on (idxLine).
func readlineRow(line []rune, pos, prompt, width int) int {
	return len(readline.SplitByLine(prompt, width, line[:pos])) - 1
}

// lineAtEdge is readline's isInLineEdge: the line ends where its count of
// columns fills a row (it then writes " \b").
func lineAtEdge(line []rune, prompt, width int) bool {
	sp := readline.SplitByLine(prompt, width, line)
	return len(sp[len(sp)-1]) == 0
}

// cleanUps parses readline's clean of the line (RuneBuffer.cleanOutput):
// ESC[J, then "ESC[2K CR ESC[A" once per row up, then "ESC[2K CR".
func cleanUps(p []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(p, []byte("\033[J"))
	if !ok {
		return 0, false
	}
	n := 0
	for {
		next, ok := bytes.CutPrefix(rest, []byte("\033[2K\r\033[A"))
		if !ok {
			break
		}
		rest, n = next, n+1
	}
	return n, string(rest) == "\033[2K\r"
}
