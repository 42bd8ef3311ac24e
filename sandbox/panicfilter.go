package sandbox

import (
	"io"
	"sync"

	"github.com/replhost/replhost/internal/yaegix"
)

// panicFilter passes everything but yaegi's panic trace lines
// (yaegix.PanicFrame) to w. The first such line is where the panic
// happened: keep its position for the error line and keep the noise from
// the user.
type panicFilter struct {
	w io.Writer

	mu        sync.Mutex // guards line and col
	line, col int
}

func (f *panicFilter) Write(p []byte) (int, error) {
	if line, col, ok := yaegix.PanicFrame(p); ok {
		f.mu.Lock()
		if f.line == 0 {
			f.line, f.col = line, col
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
