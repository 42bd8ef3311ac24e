package sandbox

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// stdioPipe is the host's end of a worker process's own fd 1 or fd 2. The
// code's output normally comes as frames on the protocol socket, but
// compiled code writes to the process's descriptors: testing.Main prints
// PASS to fd 1, the Go runtime prints a fatal panic to fd 2. What comes here
// goes to the session as the code's stdout or stderr, through the same
// forward (and output cap) as the frames; fd 2 also feeds the crash log.
//
// Two channels have no order between them. For sequential code, what was
// written to the pipe before a frame was sent is in the pipe when the frame
// is read, so the frame reader drains the pipes first: compiled output
// comes before the interpreted output and the reply that follow it, and
// all of a cell's output before its Eval returns. (Interpreted output the
// worker still holds, up to holdFor, may come after compiled output written
// later, and is lost if compiled code then exits the process.)
type stdioPipe struct {
	f   *os.File // non-blocking, on the runtime's poller
	fd  int      // f's descriptor, for drain's reads beside the poller's
	typ byte     // msgStdout or msgStderr
	w   *Worker
	log *crashLog // fd 2's; nil for fd 1
	end chan struct{}

	mu  sync.Mutex // guards eof, and orders what is forwarded
	eof bool
}

// stdioBufs are the read buffers of drain, shared: an idle worker, which
// writes nothing to its descriptors, holds none.
var stdioBufs = sync.Pool{New: func() any { return new([chunkBytes]byte) }}

// newStdioPipes returns the pipes of a worker's fd 1 and fd 2, and the
// ends the worker gets (the caller closes them once it started).
func newStdioPipes() (out, errOut *stdioPipe, childOut, childErr *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, nil, err
	}
	return newStdioPipe(outR, msgStdout, nil), newStdioPipe(errR, msgStderr, newCrashLog()), outW, errW, nil
}

func newStdioPipe(f *os.File, typ byte, log *crashLog) *stdioPipe {
	p := &stdioPipe{f: f, fd: -1, typ: typ, log: log, end: make(chan struct{})}
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { p.fd = int(fd) }) // not Fd(): that makes it blocking
	}
	return p
}

// run forwards what the worker writes until it closes its end (it
// exited), then closes end.
func (p *stdioPipe) run(w *Worker) {
	defer close(p.end)
	p.mu.Lock()
	p.w = w
	p.mu.Unlock()
	rc, err := p.f.SyscallConn()
	if err != nil || p.fd < 0 {
		return
	}
	rc.Read(func(uintptr) bool { // false: wait until readable, then call again
		return p.drain()
	})
}

// drain forwards what the pipe holds now, without waiting, and reports
// whether the pipe ended. It reads until the pipe is empty: the poller is
// edge-triggered, so what is left would wait for the worker's next write.
// (Past the output cap forward drops what it is given, so a worker that
// writes without pause costs the host reads, as frames do.)
func (p *stdioPipe) drain() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.eof || p.fd < 0 {
		return true
	}
	buf := stdioBufs.Get().(*[chunkBytes]byte)
	defer stdioBufs.Put(buf)
	for {
		n, err := unix.Read(p.fd, buf[:])
		if n > 0 {
			p.deliver(buf[:n])
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return false
		}
		p.eof = true // EOF (n == 0) or an error: the worker's end is gone
		return true
	}
}

// deliver hands b to the crash log and the session. Called with mu held.
func (p *stdioPipe) deliver(b []byte) {
	if p.log != nil {
		p.log.Write(b)
	}
	if p.w != nil && !p.w.dropOutput.Load() {
		p.w.forward(p.typ, b)
	}
}

// close closes the host's end, once run and every drain are done.
func (p *stdioPipe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eof = true
	p.f.Close()
}
