package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chzyer/readline"
	"github.com/replhost/replhost/sandbox"
)

const (
	// Prompt is shown when a new cell begins; ContPrompt while one is open.
	Prompt     = "go> "
	ContPrompt = "..> "

	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// Terminal is an interactive client: a PTY over SSH, or any terminal.
type Terminal struct {
	In  io.Reader
	Out io.Writer // raw: "\n" is sent as "\r\n"
	// Width is the terminal's width in columns; Resize carries new widths
	// (nil: none come).
	Width  int
	Resize <-chan int
	// History is the user's history file; empty keeps none.
	History string
	// EvalTimeout bounds each cell; zero: none.
	EvalTimeout time.Duration
	// AttachHint is how to come back, shown on detach (e.g. the ssh command).
	AttachHint string
}

// interaction is one attachment of a terminal to a session.
type interaction struct {
	s      *Session
	t      Terminal
	out    *crlfWriter
	rl     *readline.Instance
	filter *inputFilter
	whole  wholeLine
	direct directWait
	ctx    context.Context
	width  atomic.Int64
	onWide atomic.Pointer[func()]
	sawEOF bool // Readline returned io.EOF: readline's reader has ended
	// editing is set while Readline waits for a line (see editing.go).
	editing   atomic.Bool
	promptLen atomic.Int64 // of the prompt shown (setPrompt)
	// historyDue is the last cell, kept in the history file once the
	// prompt after it is out (history.go).
	historyDue    string
	hasHistoryDue bool
}

// Interact runs the REPL on a terminal until the user detaches (Ctrl-D at an
// empty prompt, or the client goes), quits (:quit), or the attachment is
// taken over by a newer one or the session is killed. It returns the exit
// status for the client.
func (s *Session) Interact(ctx context.Context, t Terminal) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer s.attachTerminal(func(msg string) { cancel(errors.New(msg)) })()
	s.m.emit(Event{Kind: EventSessionAttached, User: s.owner, Session: s.id})
	defer s.m.emit(Event{Kind: EventSessionDetached, User: s.owner, Session: s.id})

	it := &interaction{s: s, t: t, out: &crlfWriter{w: t.Out}, ctx: ctx}
	it.width.Store(int64(termWidth(t.Width)))
	if t.History != "" {
		trimHistory(t.History) // a failure leaves the file as it was: readline still reads it
	}
	it.filter = newInputFilter(t.In)
	go it.filter.run()
	go it.followResize()

	rl, err := readline.NewEx(it.readlineConfig(it.filter))
	if err != nil {
		fmt.Fprintf(it.out, "error: terminal: %v\n", err)
		it.filter.Close()
		return 1
	}
	it.rl = rl
	it.promptLen.Store(int64(len(Prompt)))
	// Ending the input makes a pending Readline return: that is how a
	// takeover or a kill ends the loop.
	stop := context.AfterFunc(ctx, func() { it.filter.Close() })
	defer stop()
	defer it.closeReadline()

	defer it.out.stopLinger() // after the last writes below
	io.WriteString(it.out, bracketedPasteOn)
	defer io.WriteString(it.out, bracketedPasteOff)
	fmt.Fprintf(it.out, "session %s\n", s.id)
	if err := it.load(); err != nil {
		fmt.Fprintf(it.out, "error: %v\n", err)
		if !errors.As(err, new(*RestoreError)) {
			return 1
		}
		// The session stays restorable: at the prompt, :journal and
		// :drop N can change what the next restore replays.
	}
	return it.loop()
}

// closeReadline ends readline without leaking its goroutine: readline's
// Close fills its one-slot error channel, and its reader then blocks forever
// sending io.EOF there. So the input is ended first and that io.EOF read
// (unless the loop already got it), then Close finds nobody to block.
func (it *interaction) closeReadline() {
	close(it.filter.done)
	it.filter.Close()
	if !it.sawEOF {
		it.setPrompt("") // the drain must not draw a prompt after goodbye
		done := make(chan struct{})
		go func() {
			for {
				if _, err := it.rl.Readline(); err != nil {
					break
				}
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	it.rl.Close()
}

func (it *interaction) readlineConfig(in io.ReadCloser) *readline.Config {
	cur := &cursorState{it: it}
	return &readline.Config{
		Prompt:                 Prompt,
		Stdin:                  countingInput{in, it.out, new(escState), &it.whole},
		Stdout:                 cursorFix{cur, repaints{it.out}},
		Stderr:                 it.out,
		HistoryFile:            it.t.History,
		HistoryLimit:           1000,
		DisableAutoSaveHistory: true,
		AutoComplete:           noCompletion{},
		Listener:               &lineKeys{it: it},
		Painter:                pastePainter{cur},
		FuncIsTerminal:         func() bool { return true },
		// The host's own terminal is none of readline's business.
		FuncMakeRaw:        func() error { return nil },
		FuncExitRaw:        func() error { return nil },
		FuncGetWidth:       func() int { return int(it.width.Load()) },
		FuncOnWidthChanged: func(f func()) { it.onWide.Store(&f) },
		FuncFilterInputRune: func(r rune) (rune, bool) {
			it.out.tookRune()
			return r, true
		},
	}
}

func (it *interaction) followResize() {
	if it.t.Resize == nil {
		return
	}
	for {
		select {
		case <-it.ctx.Done():
			return
		case w, ok := <-it.t.Resize:
			if !ok {
				return
			}
			it.width.Store(int64(termWidth(w)))
			if f := it.onWide.Load(); f != nil {
				(*f)()
				it.redraw()
			}
		}
	}
}

// load restores the session if it needs it; Ctrl-C interrupts the restore
// and --eval-timeout bounds each replayed cell (Config.ReplayTimeout).
func (it *interaction) load() error {
	ctx, cancel := context.WithCancel(it.ctx)
	defer cancel()
	it.filter.running(cancel)
	defer it.filter.running(nil)
	return it.s.Load(ctx, it.out)
}

// tooLargeLine is what a paste, line or cell over MaxCell gets.
var tooLargeLine = fmt.Sprintf("error: input larger than the cell limit of %d MiB; discarded", MaxCell>>20)

// loop reads cells and meta-commands until the attachment ends.
func (it *interaction) loop() int {
	var pending strings.Builder
	defer it.saveDueHistory()
	for {
		it.out.setLinger(false) // the prompt sends what the cell wrote
		prompt := Prompt
		if pending.Len() > 0 {
			prompt = ContPrompt
		}
		it.setPrompt(prompt)
		line, direct := it.directLine(prompt)
		var err error
		if !direct {
			it.saveDueHistory() // before readline can recall it
			it.whole.begin()
			line, err = it.readLine()
			it.readlineReturned(err)
		}
		if text, ok := it.whole.take(); direct || ok && err == nil && line == "" {
			// The line arrived whole; readline saw only its Enter, or
			// nothing (directline.go). Its echo waits for the cell's
			// output (see outputLinger).
			if !direct {
				line = text
			}
			it.out.setLinger(true)
			it.out.replaceHeld([]byte(line + "\n"))
		} else {
			it.out.flushHeld() // readline's last repaints of the line
		}
		if errors.Is(err, io.EOF) {
			it.sawEOF = true
		}
		if cause := context.Cause(it.ctx); cause != nil {
			fmt.Fprintf(it.out, "\n%v\n", cause)
			return 0
		}
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending.Reset() // Ctrl-C at the prompt clears the line or the open cell
			continue
		case errors.Is(err, io.EOF):
			if pending.Len() > 0 {
				pending.Reset()
				fmt.Fprintln(it.out, "(cell discarded)")
				continue
			}
			it.detachMessage()
			return 0
		case err != nil:
			return 0
		}
		line = decodePaste(line)
		if more, ok := it.filter.takeDirect(); ok {
			if more.tooLarge {
				pending.Reset()
				fmt.Fprintln(it.out, tooLargeLine)
				continue
			}
			// A pasted block or a long line, which readline did not show.
			fmt.Fprintln(it.out, more.text)
			line += more.text
		}
		if pending.Len()+len(line) >= MaxCell {
			pending.Reset()
			fmt.Fprintln(it.out, tooLargeLine)
			continue
		}
		if pending.Len() == 0 && isMeta(line) {
			if done, code := it.meta(line); done {
				return code
			}
			continue
		}
		pending.WriteString(line)
		pending.WriteByte('\n')
		cell := pending.String()
		if NeedsMore(cell) {
			continue
		}
		pending.Reset()
		cell = strings.TrimRight(cell, "\n")
		if strings.TrimSpace(cell) == "" {
			continue
		}
		it.historyDue, it.hasHistoryDue = cell, true
		it.run(cell)
	}
}

func (it *interaction) detachMessage() {
	fmt.Fprintf(it.out, "detached; session %s stays for %s", it.s.id, it.s.m.cfg.SessionTTL)
	if it.t.AttachHint != "" {
		fmt.Fprintf(it.out, "; attach with: %s", it.t.AttachHint)
	}
	fmt.Fprintln(it.out)
}

// run evaluates one cell; Ctrl-C interrupts it.
func (it *interaction) run(cell string) {
	ctx, cancel := context.WithCancel(it.ctx)
	defer cancel()
	if it.t.EvalTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, it.t.EvalTimeout)
		defer cancel()
	}
	it.filter.running(cancel)
	it.out.setLinger(true)
	err := it.s.Eval(ctx, cell, true, codeOutput{it}, codeOutput{it})
	it.filter.running(nil)
	reportError(it.out, err, it.t.EvalTimeout)
}

// reportError writes the one line a failed cell gets.
func reportError(w io.Writer, err error, timeout time.Duration) {
	var crash *sandbox.CrashError
	switch {
	case errors.As(err, new(*RestoreError)):
		fmt.Fprintf(w, "error: %v\n", err) // says itself whether interrupted or timed out
	case err == nil, errors.As(err, &crash):
		// A crash was reported when it happened.
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "interrupted")
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(w, "error: cell timed out after %s\n", timeout)
	default:
		fmt.Fprintf(w, "error: %v\n", err)
	}
}

// termWidth is the width readline wraps at: a client that says 0 (no size
// known, as expect's pty) gets the classic 80 columns.
func termWidth(w int) int {
	if w <= 0 {
		return 80
	}
	return max(w, 20)
}

var historyEncoder = strings.NewReplacer("\n", string(pasteNewline), "\t", string(pasteTab))

// encodeHistory keeps a multi-line cell as one history entry.
func encodeHistory(cell string) string { return historyEncoder.Replace(cell) }

// pastePainter shows the encoded newlines and tabs of a pasted block, and
// notes what it painted for the cursor's place (cursor.go).
type pastePainter struct{ cur *cursorState }

func (p pastePainter) Paint(line []rune, pos int) []rune {
	out := make([]rune, len(line), len(line)+8)
	for i, r := range line {
		switch r {
		case pasteNewline:
			r = '↵'
		case pasteTab:
			r = ' '
		}
		out[i] = r
	}
	p.cur.painted(line, out, pos)
	return out
}

// completer completes the identifier or pkg.Member before the cursor.
type completer struct{ s *Session }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && isWordRune(line[start-1]) {
		start--
	}
	// In an import string, a package path: complete from the opening quote.
	if q := importQuote(line[:pos]); q >= 0 {
		start = q
	}
	word := string(line[start:pos])
	if word == "" {
		return nil, 0
	}
	var out [][]rune
	for _, cand := range c.s.Complete(word) {
		out = append(out, []rune(cand[len(word):]))
	}
	return out, len([]rune(word))
}

// importQuote is the index of the opening quote of an import path the
// cursor is in ("import \"enc", or a line of an import block), or -1.
func importQuote(before []rune) int {
	q := -1
	for i, r := range before {
		if r == '"' {
			if q >= 0 {
				q = -1 // a closed string
			} else {
				q = i
			}
		}
	}
	if q < 0 {
		return -1
	}
	head := strings.TrimSpace(string(before[:q]))
	if head == "" || strings.HasSuffix(head, "import") || strings.HasSuffix(head, "import (") || isIdent(head) {
		return q
	}
	return -1
}

func isIdent(s string) bool {
	for _, r := range s {
		if !isWordRune(r) || r == '.' {
			return false
		}
	}
	return s != ""
}

func isWordRune(r rune) bool {
	return r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 && r != pasteNewline && r != pasteTab
}
