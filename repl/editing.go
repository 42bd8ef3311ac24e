package repl

import (
	"bytes"
	"io"

	"github.com/chzyer/readline"
)

// What the terminal shows around the line being edited: readline erases
// the current screen line before it draws the prompt, and writes that
// reach the terminal while a line is edited land inside it. Both are fixed
// here, around readline (chzyer/readline v1.5.1).

// readLine is the loop's Readline: a prompt starts on a line of its own
// when the cell's output did not end with a newline (fmt.Print("abc")
// stays visible), and code output arriving meanwhile is drawn above it.
func (it *interaction) readLine() (string, error) {
	// A prompt directLine showed is on a line of its own; readline's
	// first paint draws it again there.
	if !it.direct.shown && !it.out.atLineStart() {
		io.WriteString(it.out, "\n")
	}
	it.direct.shown = false
	it.editing.Store(true)
	defer it.editing.Store(false)
	return it.rl.Readline()
}

// codeOutput is where the session's code writes while this terminal is
// attached. During a cell it goes straight out; while a line is edited
// (output of a goroutine the code started) readline's writer erases the
// line, writes, and draws the line again below it. Output that does not end
// a line gets a newline there, or the redrawn prompt would erase it.
type codeOutput struct{ it *interaction }

func (c codeOutput) Write(p []byte) (int, error) {
	if !c.it.editing.Load() {
		if c.it.aboveDirectPrompt(p) {
			return len(p), nil
		}
		return c.it.out.Write(p)
	}
	b := p
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(bytes.Clone(p), '\n')
	}
	if _, err := c.it.rl.Stdout().Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redraw draws the line being edited again after a resize: readline only
// notes the new width, which leaves the old layout's lines on the screen.
// Its clean moves up by the rows the line takes at the new width, as a
// terminal that reflows (xterm, tmux, VTE) has it.
func (it *interaction) redraw() {
	if it.editing.Load() {
		it.rl.Refresh()
	} else {
		it.redrawDirectPrompt()
	}
}

// setPrompt sets readline's prompt and notes its width (prompts are
// ASCII) for the painter, which runs in readline's goroutine.
func (it *interaction) setPrompt(p string) {
	it.promptLen.Store(int64(len(p)))
	it.rl.SetPrompt(p)
}

func (it *interaction) promptWidth() int { return int(it.promptLen.Load()) }

// columns is the width of rs on the screen, as readline reckons it.
func columns(rs []rune) int { return readline.Runes{}.WidthAll(rs) }
