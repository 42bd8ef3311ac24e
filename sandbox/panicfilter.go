package sandbox

import (
	"io"
	"regexp"
	"strconv"
	"sync"
)

// yaegi prints "L:C: panic: main(...)" to the interpreter's stderr for every
// frame a panic unwinds. The first such line is where the panic happened: keep
// its position for the error line and keep the noise from the user.
var panicLine = regexp.MustCompile(`^(\d+):(\d+): panic: [^\n]*\(\.\.\.\)\n?$`)

// panicFilter passes everything but yaegi's panic trace lines to w.
type panicFilter struct {
	w io.Writer

	mu        sync.Mutex // guards line and col
	line, col int
}

func (f *panicFilter) Write(p []byte) (int, error) {
	if m := panicLine.FindSubmatch(p); m != nil {
		f.mu.Lock()
		if f.line == 0 {
			f.line, _ = strconv.Atoi(string(m[1]))
			f.col, _ = strconv.Atoi(string(m[2]))
		}
		f.mu.Unlock()
		return len(p), nil
	}
	return f.w.Write(p)
}

func (f *panicFilter) reset() {
	f.mu.Lock()
	f.line, f.col = 0, 0
	f.mu.Unlock()
}

func (f *panicFilter) position() (line, col int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.line, f.col
}
