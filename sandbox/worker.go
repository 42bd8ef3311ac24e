package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	defaultStartTimeout = 10 * time.Second
	// interruptGrace is how long the host waits for an interrupted cell's
	// result before it ends the worker itself: the worker's own stuckGrace
	// plus room for a loaded machine.
	interruptGrace = stuckGrace + 1200*time.Millisecond
	closeGrace     = time.Second // for a quit before the worker is killed
	completeWait   = 2 * time.Second
)

// WorkerOptions configure a session's worker process. Only Dir is required.
type WorkerOptions struct {
	// Dir is the session directory ROOT/<uuid>: the only place the worker
	// can read and write; Dir/files is its working directory and
	// Dir/classes its GOPATH.
	Dir string
	// Allow is the package allowlist; the zero value is the default one.
	// Allowing a network package also lets TCP through Landlock.
	Allow Allowlist
	// Stdout and Stderr receive the code's output and the values shown, in
	// the order written and all before Eval returns; nil discards. They
	// are written from one goroutine and should not block for long.
	Stdout, Stderr io.Writer
	// Memory caps the worker's memory in bytes; 0 means DefaultMemory.
	Memory int64
	// OutputCap is the output a cell may write, in bytes; 0 means
	// DefaultOutputCap, negative means no cap.
	OutputCap int64
	// Executable is the binary to start; "" means os.Executable().
	Executable string
	// Args are its arguments; nil means []string{"worker"}.
	Args []string
	// StartTimeout bounds the ready handshake; 0 means 10s.
	StartTimeout time.Duration

	denyNet  bool // tests: Landlock denies TCP even if the allowlist has net
	noCgroup bool // tests: watch RSS instead of making a cgroup
}

// Worker is a session's interpreter in a worker process of its own:
// confined by Landlock, under a memory cap, at a lower CPU priority, in its
// own process group, and killed with the host. It satisfies the same
// contract as *Interp. It is safe for concurrent use; requests run one at a
// time, Complete may run alongside.
//
// Lock order: opMu or completeMu, then mu or the frame writer's lock; mu is
// never held while writing to the socket or to Stdout/Stderr.
type Worker struct {
	cmd   *exec.Cmd
	pid   int
	conn  *os.File     // the host's end of the protocol socket
	fw    *frameWriter // requests, on conn
	log   *crashLog    // the worker's own stdout and stderr
	ready chan struct{}
	dead  chan struct{} // closed when the process was waited for and the reader ended

	replies     chan reply  // the reply of the request in flight
	completions chan []byte // the reply of Complete
	udfCredits  chan struct{}
	dropOutput  atomic.Bool // an interrupt was sent: output up to the reply is dropped

	opMu       sync.Mutex // one request at a time: init, eval, udf list or call
	completeMu sync.Mutex // one Complete at a time
	closeOnce  sync.Once
	closing    atomic.Bool

	mu             sync.Mutex // guards the fields below
	stdout, stderr io.Writer
	udfOut, udfErr io.Writer // of the udf call in flight
	mem            *memLimit
	memory         int64
	killReason     string // why the host ended the worker; "" if it did not
	waitErr        error  // of cmd.Wait
}

type reply struct {
	typ     byte
	payload []byte
}

// read dispatches the worker's frames until the socket closes: output to
// the writers as it comes, replies to the request waiting for them.
func (w *Worker) read(done chan<- struct{}) {
	defer close(done)
	var readyOnce sync.Once
	br := bufio.NewReaderSize(w.conn, 64<<10)
	for {
		typ, p, err := readFrame(br)
		if errors.Is(err, errFrameTooLarge) {
			w.kill("protocol error: " + err.Error())
		}
		if err != nil {
			return // the worker ended
		}
		switch typ {
		case msgReady:
			readyOnce.Do(func() { close(w.ready) })
		case msgStdout, msgStderr, msgUDFOut, msgUDFErr:
			if w.dropOutput.Load() {
				continue
			}
			if out := w.writer(typ); out != nil {
				out.Write(p) // a failing writer loses the output, not the session
			}
		case msgUDFAck:
			select {
			case w.udfCredits <- struct{}{}:
			default:
			}
		case msgCompletions:
			select {
			case w.completions <- p:
			default: // a reply nobody waits for any more
			}
		default:
			// The output of an interrupted request is dropped up to its
			// reply, which follows all of it.
			w.dropOutput.Store(false)
			select {
			case w.replies <- reply{typ, p}:
			default: // not a reply of a request in flight: the worker is confused
			}
		}
	}
}

func (w *Worker) writer(typ byte) io.Writer {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch typ {
	case msgStdout:
		return w.stdout
	case msgStderr:
		return w.stderr
	case msgUDFOut:
		return w.udfOut
	default:
		return w.udfErr
	}
}

// wait reaps the worker, then releases what it held.
func (w *Worker) wait(readerDone <-chan struct{}) {
	err := w.cmd.Wait() // also waits for the crash log to reach EOF
	w.conn.Close()      // ends the reader if the worker left the socket open
	<-readerDone
	w.mu.Lock()
	w.waitErr = err
	mem := w.mem
	w.mu.Unlock()
	if mem != nil {
		if mem.oomKilled() {
			w.setKillReason(capReason(mem.limit))
		}
		mem.release()
	}
	close(w.dead)
}

func (w *Worker) setKillReason(reason string) {
	w.mu.Lock()
	if w.killReason == "" {
		w.killReason = reason
	}
	w.mu.Unlock()
}

// kill ends the worker for reason; safe to call any time, also after it ended.
func (w *Worker) kill(reason string) {
	w.setKillReason(reason)
	w.cmd.Process.Kill() // through a pidfd: never another process
}

// crashReason says why the worker ended, once dead is closed: the host's
// own reason for ending it, else what the Go runtime printed, else the
// exit status.
func (w *Worker) crashReason() string {
	w.mu.Lock()
	reason, waitErr := w.killReason, w.waitErr
	w.mu.Unlock()
	if reason != "" {
		return reason
	}
	if reason = w.log.Reason(); reason != "" {
		return reason
	}
	if waitErr != nil {
		return waitErr.Error()
	}
	return "worker exited"
}

// crashError waits for the worker's end and reports it.
func (w *Worker) crashError() error {
	<-w.dead
	if w.closing.Load() {
		return ErrClosed
	}
	return &CrashError{Reason: w.crashReason()}
}

// usable reports why no request can be sent, or nil.
func (w *Worker) usable() error {
	if w.closing.Load() {
		return ErrClosed
	}
	select {
	case <-w.dead:
		return w.crashError()
	default:
		return nil
	}
}

// InterruptedError is returned by Eval and CallUDF when a cell did not stop
// on interrupt (it was blocked in a native call such as time.Sleep) and its
// worker was ended. It is both the context's error (errors.Is(err,
// context.Canceled)) and a *CrashError (errors.As): the user sees
// "interrupted", and the session is restored from its journal.
type InterruptedError struct {
	ctxErr error
	crash  *CrashError
}

func (e *InterruptedError) Error() string   { return "interrupted; " + e.crash.Error() }
func (e *InterruptedError) Unwrap() []error { return []error{e.ctxErr, e.crash} }

// await waits for the reply of the request in flight. When ctx ends it
// interrupts the worker and waits for the reply a little more, then ends
// the worker. canceled is true when the request was interrupted.
func (w *Worker) await(ctx context.Context) (r reply, canceled bool, err error) {
	select {
	case r := <-w.replies:
		return r, false, nil
	case <-w.dead:
		return reply{}, false, w.crashError()
	case <-ctx.Done():
	}
	w.dropOutput.Store(true)
	w.fw.send(msgInterrupt, nil)
	t := time.NewTimer(interruptGrace)
	defer t.Stop()
	select {
	case r := <-w.replies:
		if res, err := decodeResult(r, r.typ); err != nil || res.Kind != resStuck {
			return r, true, nil
		}
	case <-w.dead:
		return reply{}, true, w.crashError()
	case <-t.C:
	}
	w.kill("interrupted cell did not stop")
	if err := w.crashError(); !errors.As(err, new(*CrashError)) {
		return reply{}, true, err
	}
	return reply{}, true, &InterruptedError{ctxErr: ctx.Err(), crash: &CrashError{Reason: w.crashReason()}}
}

// Eval runs one cell in the worker; with show, the values of expression
// statements are written to Stdout. It returns an *EvalError, an
// *ExitError, ctx.Err() when interrupted, an *InterruptedError when the
// interrupted cell did not stop, a *CrashError when the worker died (the
// caller starts a new worker and replays the journal), ErrClosed, or nil.
func (w *Worker) Eval(ctx context.Context, cell string, show bool) error {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // not even sent: a cell started already canceled may not stop
	}
	payload := make([]byte, 1, 1+len(cell))
	if show {
		payload[0] = 1
	}
	payload = append(payload, cell...)
	if len(payload) > maxFrame {
		return &EvalError{Msg: fmt.Sprintf("cell too large: %d bytes, at most %d", len(cell), maxFrame-1)}
	}
	w.dropOutput.Store(false)
	if err := w.fw.send(msgEval, payload); err != nil {
		return w.crashError()
	}
	r, canceled, err := w.await(ctx)
	if err != nil {
		return err
	}
	res, err := decodeResult(r, msgResult)
	if err != nil {
		return err
	}
	if res.Kind == resCanceled {
		if canceled {
			return ctx.Err()
		}
		return context.Canceled
	}
	return res.err()
}

// Complete returns the completions of word, as (*Interp).Complete; nil when
// the worker does not answer in time.
func (w *Worker) Complete(word string) []string {
	w.completeMu.Lock()
	defer w.completeMu.Unlock()
	if w.usable() != nil {
		return nil
	}
	select {
	case <-w.completions: // a late reply of an earlier call
	default:
	}
	if w.fw.send(msgComplete, []byte(word)) != nil {
		return nil
	}
	t := time.NewTimer(completeWait)
	defer t.Stop()
	for {
		select {
		case p := <-w.completions:
			parts := strings.Split(string(p), "\x00")
			if parts[0] == word {
				return parts[1:]
			}
		case <-w.dead:
			return nil
		case <-t.C:
			return nil
		}
	}
}

// PID returns the worker's process id.
func (w *Worker) PID() int { return w.pid }

// Close ends the worker: it asks it to quit, kills it if it has not within
// a second, and waits for its end. A request in flight returns ErrClosed.
// Safe to call twice and concurrently.
func (w *Worker) Close() error {
	w.closeOnce.Do(func() {
		w.closing.Store(true)
		w.conn.SetWriteDeadline(time.Now().Add(closeGrace))
		w.fw.send(msgQuit, nil)
		t := time.NewTimer(closeGrace)
		defer t.Stop()
		select {
		case <-w.dead:
		case <-t.C:
			w.kill("closed")
		}
	})
	<-w.dead
	return nil
}

func decodeResult(r reply, want byte) (resultMsg, error) {
	var res resultMsg
	if r.typ != want {
		return res, fmt.Errorf("sandbox: worker replied %q to a %q request", r.typ, want)
	}
	if err := json.Unmarshal(r.payload, &res); err != nil {
		return res, fmt.Errorf("sandbox: worker reply: %w", err)
	}
	return res, nil
}

// Replay runs a session's journal in the worker, its output discarded, in
// a few messages rather than one round trip per cell (repl.Evaluator). It
// stops at the first cell that fails and returns its index and error, or
// len(cells) and nil.
func (w *Worker) Replay(ctx context.Context, cells []string) (int, error) {
	done := 0
	for done < len(cells) {
		// A chunk of cells that fits in one frame; a cell too large for
		// one goes alone through Eval, which says so.
		end, size := done, 2
		for end < len(cells) && size+len(cells[end])+16 < maxFrame/2 {
			size += len(cells[end]) + 16
			end++
		}
		if end == done {
			if err := w.Eval(ctx, cells[done], false); err != nil {
				return done, err
			}
			done++
			continue
		}
		n, err := w.replayChunk(ctx, cells[done:end])
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func (w *Worker) replayChunk(ctx context.Context, cells []string) (int, error) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	w.dropOutput.Store(false)
	if err := w.fw.send(msgReplay, mustJSON(cells)); err != nil {
		return 0, w.crashError()
	}
	r, canceled, err := w.await(ctx)
	if err != nil {
		return 0, err
	}
	res, err := decodeResult(r, msgResult)
	if err != nil {
		return 0, err
	}
	if res.Kind == resCanceled {
		if canceled {
			return res.Records, ctx.Err()
		}
		return res.Records, context.Canceled
	}
	return res.Records, res.err()
}
