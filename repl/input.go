package repl

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	// pasteNewline stands for a newline of a multi-line cell kept as one
	// history entry (one line for readline); the loop turns it back into
	// '\n'. A private-use rune: never typed, never in Go source.
	pasteNewline = '\uE000'
	// pasteTab stands for a tab in pasted or recalled text: readline would
	// take it for a completion request.
	pasteTab = '\uE001'
	ctrlC    = 0x03
)

// MaxCell is the largest cell, in bytes, in both isolation modes: the
// worker protocol's frame bound, and what a paste, a line, a script or an
// open multi-line cell may hold. Input past it is refused with one line and
// discarded as it arrives, never buffered.
const MaxCell = 1 << 20

// ErrCellTooLarge refuses a cell over MaxCell.
var ErrCellTooLarge = fmt.Errorf("repl: cell larger than the limit of %d MiB", MaxCell>>20)

// maxTypeAhead bounds the input queued for readline while it does not
// read (a cell runs); keystrokes past it are dropped.
const maxTypeAhead = MaxCell

// longLine is the length past which a line bypasses readline: readline
// redraws the whole line for every rune it is given, so a pasted or
// generated line of a megabyte would cost it a terabyte of redraws.
const longLine = 1024

// inputFilter sits between the client's keystrokes and readline. readline
// knows neither bracketed paste nor a Ctrl-C typed while a cell runs (it
// would sit in its buffer), and it cannot take long lines, so: Ctrl-C during
// a cell calls the cell's interrupt; a pasted block, and the rest of a line
// longer than longLine, go to the loop directly (direct), followed by an
// Enter to readline that ends the line the loop is waiting for.
type inputFilter struct {
	src    io.Reader
	direct chan directText // what continues the line readline returns next
	done   chan struct{}   // closed when the loop has ended

	// queue holds input for readline: readline reads only while a Readline
	// call waits, so writing to it straight would block this filter, and a
	// Ctrl-C typed behind some type-ahead would never reach a running cell.
	queueMu     sync.Mutex
	queue       [][]byte
	queuedBytes int           // bytes in queue
	queued      chan struct{} // signalled when queue grows, for Read
	arrived     chan struct{} // signalled when queue grows, for takeLine's caller
	reads       uint64        // Reads that returned input (guarded by queueMu)
	eof         bool          // Read took the end of input (guarded by queueMu)
	closed      chan struct{} // closed by Close
	closeOnce   sync.Once

	mu        sync.Mutex // guards interrupt
	interrupt func()     // non-nil while a cell runs
}

func newInputFilter(src io.Reader) *inputFilter {
	return &inputFilter{src: src, direct: make(chan directText, 1), done: make(chan struct{}), queued: make(chan struct{}, 1), arrived: make(chan struct{}, 1), closed: make(chan struct{})}
}

// running installs the interrupt of the cell now running; nil when none.
func (f *inputFilter) running(interrupt func()) {
	f.mu.Lock()
	f.interrupt = interrupt
	f.mu.Unlock()
}

// directText is a pasted block or the rest of a long line; tooLarge when
// it passed MaxCell and was discarded.
type directText struct {
	text     string
	tooLarge bool
}

// takeDirect returns what continues the line readline just returned, if
// any.
func (f *inputFilter) takeDirect() (directText, bool) {
	select {
	case d := <-f.direct:
		return d, true
	default:
		return directText{}, false
	}
}

// run copies input until the client goes, then interrupts a running cell
// and closes readline's input.
func (f *inputFilter) run() {
	var (
		buf     = make([]byte, 32*1024)
		held    []byte // a possible escape sequence cut by a read
		pasting bool
		paste   bytes.Buffer
		lineLen int          // bytes of the current line given to readline
		long    bool         // the current line goes direct
		rest    bytes.Buffer // its text so far
		// The paste or long line passed MaxCell: the rest of it is
		// dropped as it arrives.
		discarding bool
	)
	defer func() {
		f.mu.Lock()
		if f.interrupt != nil {
			f.interrupt()
		}
		f.mu.Unlock()
		f.enqueueAt(nil, true) // end of input, after what is queued
	}()
	// sendDirect hands text to the loop, then ends readline's line.
	sendDirect := func(out *bytes.Buffer, text string) bool {
		if out.Len() > 0 {
			f.enqueue(bytes.Clone(out.Bytes()))
			out.Reset()
		}
		d := directText{text: text, tooLarge: discarding}
		discarding = false
		select {
		case f.direct <- d:
		case <-f.done:
			return false
		}
		f.enqueueAt([]byte{'\r'}, true)
		lineLen = 0
		return true
	}
	for {
		n, err := f.src.Read(buf)
		data := append(held, buf[:n]...)
		held = nil
		var out bytes.Buffer
		for len(data) > 0 {
			if pasting {
				i := bytes.Index(data, []byte(pasteEnd))
				if i < 0 {
					keep := partialSuffix(data, pasteEnd)
					bounded(&paste, data[:len(data)-keep], &discarding)
					held = append(held, data[len(data)-keep:]...)
					break
				}
				bounded(&paste, data[:i], &discarding)
				data = data[i+len(pasteEnd):]
				pasting = false
				text := normalizeNewlines(paste.String())
				paste.Reset()
				if discarding {
					if !sendDirect(&out, "") {
						return
					}
					continue
				}
				if strings.Contains(text, "\n") || lineLen+len(text) > longLine {
					if !sendDirect(&out, strings.TrimRight(text, "\n")) {
						return
					}
					continue
				}
				out.WriteString(strings.ReplaceAll(text, "\t", string(pasteTab)))
				lineLen += len(text)
				continue
			}
			if long {
				i := bytes.IndexAny(data, "\r\n")
				if i < 0 {
					bounded(&rest, data, &discarding)
					break
				}
				bounded(&rest, data[:i], &discarding)
				data = data[i+1:]
				long = false
				if !sendDirect(&out, rest.String()) {
					return
				}
				rest.Reset()
				continue
			}
			if bytes.HasPrefix(data, []byte(pasteStart)) {
				data = data[len(pasteStart):]
				pasting = true
				continue
			}
			if keep := partialSuffix(data, pasteStart); keep == len(data) {
				held = append(held, data...)
				break
			}
			if to, n, partial := translateKey(data); n > 0 {
				out.WriteString(to)
				data = data[n:]
				lineLen++
				continue
			} else if partial {
				held = append(held, data...)
				break
			}
			c := data[0]
			data = data[1:]
			switch {
			case c == ctrlC && f.interruptCell():
				continue
			case c == '\r' || c == '\n':
				lineLen = 0
			case lineLen >= longLine && c >= ' ':
				long = true
				rest.WriteByte(c)
				continue
			default:
				lineLen++
			}
			out.WriteByte(c)
		}
		if out.Len() > 0 {
			f.enqueue(bytes.Clone(out.Bytes()))
		}
		if err != nil {
			return
		}
	}
}

// bounded appends p to buf while buf stays within MaxCell; past it, buf is
// emptied and discarding set, and what follows is dropped.
func bounded(buf *bytes.Buffer, p []byte, discarding *bool) {
	if *discarding {
		return
	}
	if buf.Len()+len(p) > MaxCell {
		*discarding = true
		buf.Reset()
		return
	}
	buf.Write(p)
}

// enqueue adds input for readline. Type-ahead past maxTypeAhead is
// dropped.
func (f *inputFilter) enqueue(b []byte) { f.enqueueAt(b, false) }

// enqueueAt adds input for readline; must input (the end of input, nil,
// or the Enter that ends a direct line) is never dropped.
func (f *inputFilter) enqueueAt(b []byte, must bool) {
	f.queueMu.Lock()
	if !must && f.queuedBytes+len(b) > maxTypeAhead {
		f.queueMu.Unlock()
		return
	}
	f.queue = append(f.queue, b)
	f.queuedBytes += len(b)
	f.queueMu.Unlock()
	select {
	case f.queued <- struct{}{}:
	default:
	}
	select {
	case f.arrived <- struct{}{}:
	default:
	}
}

// Read is readline's input: what is queued, as readline asks for it (it
// reads only while a Readline call waits). It waits while the queue is
// empty, and returns io.EOF at the end of input, once the loop has ended
// or after Close. readline reads the queue itself: a goroutine that wrote
// it to readline through an io.Pipe cost three goroutine hand-offs per
// line read (to it, to readline, and back once readline had taken it).
func (f *inputFilter) Read(p []byte) (int, error) {
	for {
		f.queueMu.Lock()
		if f.eof {
			f.queueMu.Unlock()
			return 0, io.EOF
		}
		if len(f.queue) > 0 {
			next := f.queue[0]
			if next == nil {
				f.eof = true
				f.queue = nil
				f.queueMu.Unlock()
				return 0, io.EOF
			}
			n := copy(p, next)
			if n < len(next) {
				f.queue[0] = next[n:]
			} else {
				f.queue[0] = nil // no hold on what readline took
				f.queue = f.queue[1:]
			}
			f.queuedBytes -= n
			f.reads++
			f.queueMu.Unlock()
			return n, nil
		}
		f.queueMu.Unlock()
		select {
		case <-f.queued:
		case <-f.done:
			return 0, io.EOF
		case <-f.closed:
			return 0, io.EOF
		}
	}
}

// Close ends readline's input: a Read waiting returns io.EOF, and so do
// all after it. Safe to call more than once.
func (f *inputFilter) Close() error {
	f.closeOnce.Do(func() { close(f.closed) })
	return nil
}

func (f *inputFilter) interruptCell() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.interrupt == nil {
		return false
	}
	f.interrupt()
	return true
}

// partialSuffix is the length of the longest end of data that begins marker.
func partialSuffix(data []byte, marker string) int {
	for k := min(len(marker)-1, len(data)); k > 0; k-- {
		if strings.HasPrefix(marker, string(data[len(data)-k:])) {
			return k
		}
	}
	return 0
}

var pasteDecoder = strings.NewReplacer(string(pasteNewline), "\n", string(pasteTab), "\t")

// normalizeNewlines turns the CR and CRLF line ends terminals paste into LF.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// decodePaste restores the newlines and tabs of a multi-line history entry.
func decodePaste(line string) string {
	return pasteDecoder.Replace(line)
}
