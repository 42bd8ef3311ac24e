package sandbox

import (
	"fmt"
	"sync"
)

// DefaultOutputCap is the output a cell may write when
// WorkerOptions.OutputCap is 0.
const DefaultOutputCap = 4 << 20

// cellOutput streams the code's output of the worker to the host as frames,
// up to limit bytes per cell (stdout and stderr together). Past the limit it
// sends one notice line and drops the rest, while the cell runs on: the
// host and the user's terminal are spared a flood, and Ctrl-C still stops it.
type cellOutput struct {
	fw *frameWriter

	mu     sync.Mutex // guards the fields below and orders the frames
	id     uint32     // of the request whose output this is
	limit  int64      // 0: no cap
	n      int64      // bytes sent in this cell
	cut    bool       // the notice was sent
	lineOK bool       // the last byte sent ended a line
}

func (o *cellOutput) reset(limit int64, id uint32) {
	o.mu.Lock()
	o.id, o.limit, o.n, o.cut, o.lineOK = id, limit, 0, false, true
	o.mu.Unlock()
}

// write sends p as output of type typ; last says the request's reply
// follows at once (see holdForSend).
func (o *cellOutput) write(typ byte, p []byte, last bool) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cut {
		return len(p), nil
	}
	keep := p
	if o.limit > 0 && o.n+int64(len(p)) > o.limit {
		keep = p[:o.limit-o.n]
	}
	o.n += int64(len(keep))
	if err := o.fw.holdChunks(typ, o.id, keep, last); err != nil {
		return 0, err
	}
	if len(keep) > 0 {
		o.lineOK = keep[len(keep)-1] == '\n'
	}
	if len(keep) < len(p) {
		o.cut = true
		notice := "output truncated at " + formatBytes(o.limit) + "\n"
		if !o.lineOK {
			notice = "\n" + notice
		}
		if err := o.fw.hold(msgStderr, o.id, []byte(notice)); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// streamWriter is the io.Writer of one stream of cellOutput.
type streamWriter struct {
	o   *cellOutput
	typ byte
}

func (w streamWriter) Write(p []byte) (int, error) { return w.o.write(w.typ, p, false) }

// WriteLast is Write for the cell's last output, its shown value, which
// the request's result follows at once (Interp.show).
func (w streamWriter) WriteLast(p []byte) (int, error) { return w.o.write(w.typ, p, true) }

// formatBytes writes n the way the flags take it: 4MiB, 512MiB, 1GiB.
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}
