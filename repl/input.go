package repl

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	// pasteNewline stands for a newline inside a pasted block while readline
	// holds it as one line (one edit, one history entry); the loop turns it
	// back into '\n'. A private-use rune: never typed, never in Go source.
	pasteNewline = '\uE000'
	// pasteTab stands for a tab in a pasted block: readline would take it
	// for a completion request.
	pasteTab = '\uE001'
	ctrlC    = 0x03
)

// inputFilter sits between the client's keystrokes and readline. readline
// knows neither bracketed paste nor a Ctrl-C typed while a cell runs (it
// would sit in its buffer), so both are handled here: Ctrl-C during a cell
// calls the cell's interrupt, and a pasted block becomes one line with its
// newlines encoded, submitted when the paste ends.
type inputFilter struct {
	src io.Reader
	dst *io.PipeWriter

	mu        sync.Mutex // guards interrupt
	interrupt func()     // non-nil while a cell runs
}

func newInputFilter(src io.Reader, dst *io.PipeWriter) *inputFilter {
	return &inputFilter{src: src, dst: dst}
}

// running installs the interrupt of the cell now running; nil when none.
func (f *inputFilter) running(interrupt func()) {
	f.mu.Lock()
	f.interrupt = interrupt
	f.mu.Unlock()
}

// run copies input until the client goes, then interrupts a running cell
// and closes readline's input.
func (f *inputFilter) run() {
	var (
		buf     = make([]byte, 32*1024)
		held    []byte // a possible escape sequence cut by a read
		pasting bool
		paste   bytes.Buffer
	)
	defer func() {
		f.mu.Lock()
		if f.interrupt != nil {
			f.interrupt()
		}
		f.mu.Unlock()
		f.dst.Close()
	}()
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
					paste.Write(data[:len(data)-keep])
					held = append(held, data[len(data)-keep:]...)
					break
				}
				paste.Write(data[:i])
				data = data[i+len(pasteEnd):]
				pasting = false
				out.WriteString(encodePaste(paste.String()))
				paste.Reset()
				continue
			}
			if i := bytes.Index(data, []byte(pasteStart)); i == 0 {
				data = data[len(pasteStart):]
				pasting = true
				continue
			}
			if keep := partialSuffix(data, pasteStart); keep == len(data) {
				held = append(held, data...)
				break
			}
			c := data[0]
			data = data[1:]
			if c == ctrlC && f.interruptCell() {
				continue
			}
			out.WriteByte(c)
		}
		if out.Len() > 0 {
			if _, werr := f.dst.Write(out.Bytes()); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
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

// encodePaste turns a pasted block into what readline gets: one line with
// its newlines encoded, then Enter, so the block runs once as one cell. A
// paste without a newline is plain typing.
func encodePaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\t", string(pasteTab))
	if !strings.Contains(s, "\n") {
		return s
	}
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", string(pasteNewline)) + "\r"
}

// decodePaste restores the newlines of a pasted block.
func decodePaste(line string) string {
	return pasteDecoder.Replace(line)
}
