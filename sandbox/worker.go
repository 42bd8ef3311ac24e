package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

const (
	defaultStartTimeout = 10 * time.Second
	// interruptGrace is how long the host waits for an interrupted cell's
	// result before it ends the worker itself: the worker's own stuckGrace
	// plus room for a loaded machine.
	interruptGrace = stuckGrace + 1200*time.Millisecond
	// closeGrace is how long Close waits for a quit before it kills: a
	// stopped or spinning worker is gone within a second of Close.
	closeGrace   = 400 * time.Millisecond
	completeWait = 2 * time.Second
	// poolInitWait bounds the init of an idle pool worker: one that does
	// not answer by then (stopped, starved) is killed and the session gets
	// another, so that a login never waits on it.
	poolInitWait = time.Second
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
	// Group is who the session belongs to (its user): the CPU is shared
	// equally between groups first, then between a group's workers.
	// "" is a group of its own.
	Group string
	// MaxThreads caps the worker's threads (pids cgroup); 0 means
	// DefaultMaxThreads.
	MaxThreads int
	// Disk is the session's disk quota in bytes (RLIMIT_FSIZE and a watcher
	// of the session's usage: see watchDisk); 0 means DefaultDisk, negative
	// none.
	Disk int64
	// Users are the uids workers run as; nil: the host's own.
	Users *WorkerUsers
	// Env is the environment the session's code sees (see Options.Env);
	// checked by CheckEnv before it is sent.
	Env []string

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
	cmd           *exec.Cmd
	pid           int
	exe           string
	conn          *os.File      // the host's end of the worker's socket: its frames
	connOut       *os.File      // the host's end of the requests' socket (blocking)
	fw            *frameWriter  // requests, on connOut
	dec           *hostDecoder  // the worker's frames, on conn: checked
	log           *crashLog     // of the worker's own stderr (stdio[1])
	stdio         [2]*stdioPipe // the worker's own fd 1 and fd 2
	ready         chan struct{}
	hello         helloMsg      // the handshake, set before ready is closed
	dead          chan struct{} // closed when the process was waited for and the reader ended
	diskForgotten bool          // the disk watchers forgot it: a watcher that joins later closes at once (guarded by hostDiskWatchers.mu)

	replies     chan event // the reply of the request in flight
	completions chan event // the reply of Complete
	udfCredits  chan struct{}
	dropOutput  atomic.Bool // an interrupt was sent: output up to the reply is dropped

	opMu       sync.Mutex // one request at a time: init, eval, udf list or call
	completeMu sync.Mutex // one Complete at a time
	closeOnce  sync.Once
	closing    atomic.Bool

	mu             sync.Mutex // guards the fields below
	stdout, stderr io.Writer
	udfOut, udfErr io.Writer // of the udf call in flight
	outCap         int64     // output a request may forward (cap and notice); 0: no cap
	outN           int64     // output forwarded since the request began
	outCut         bool      // the host cut this request's output
	mem            *memLimit
	memory         int64
	killReason     string // why the host ended the worker; "" if it did not
	protoErr       error  // the protocol error that ended it, if one did
	waitErr        error  // of cmd.Wait
}

// read dispatches the worker's frames, checked by the decoder, until the
// socket closes: output to the writers as it comes, replies to the
// request waiting for them. A protocol error ends the worker; so does a
// panic here, which never reaches the rest of the host.
func (w *Worker) read(done chan<- struct{}) {
	defer close(done)
	defer func() {
		if v := recover(); v != nil {
			w.protocolError(protoErrorf("host decoder panicked: %v", v))
		}
	}()
	// drained is the read of the socket after which the pipes were last
	// drained: what the worker wrote to them before it sent the frames of
	// one read is in them by then, so one drain serves all those frames
	// (a cell's output and result come in one read: one poll, not two).
	drained := uint64(0)
	drainStdio := func() {
		if n := w.dec.reads(); n != drained {
			drained = n
			w.drainStdio()
		}
	}
	for {
		ev, ok, err := w.dec.next()
		if err != nil {
			if errors.Is(err, ErrProtocol) {
				w.protocolError(err)
			}
			return // the worker ended, or was ended
		}
		if !ok {
			continue
		}
		switch ev.typ {
		case msgReady:
			w.hello = ev.hello
			close(w.ready)
		case msgStdout, msgStderr, msgUDFOut, msgUDFErr:
			drainStdio()
			if !w.dropOutput.Load() {
				w.forward(ev.typ, ev.out)
			}
		case msgUDFAck:
			select {
			case w.udfCredits <- struct{}{}:
			default:
			}
		case msgCompletions:
			select {
			case w.completions <- ev:
			default: // a reply nobody waits for any more
			}
		default:
			// What compiled code of the request wrote to fd 1 and 2 is
			// in the pipes by now: it goes out before the reply.
			drainStdio()
			// The output of an interrupted request is dropped up to its
			// reply, which follows all of it.
			w.dropOutput.Store(false)
			select {
			case w.replies <- ev:
			default: // the decoder lets one reply through per request
				w.protocolError(protoErrorf("second reply %q", ev.typ))
				return
			}
			// The waiter is next on this P: let it run now, not after
			// this reader's next read finds the socket empty and parks
			// (a syscall and a trip through the scheduler). The reader
			// resumes from the global queue, usually on the other P.
			runtime.Gosched()
		}
	}
}

// hostCapSlack is what an honest worker may send past the output cap: the
// notice that it cut the output.
const hostCapSlack = 256

// forward writes output to its writer, within the request's cap: the
// worker keeps to the cap itself, this holds even if the code in it sent
// frames of its own.
func (w *Worker) forward(typ byte, p []byte) {
	w.mu.Lock()
	out := w.writerLocked(typ)
	notice := ""
	if w.outCap > 0 && typ != msgUDFOut && typ != msgUDFErr {
		if w.outCut {
			p = nil
		} else if room := w.outCap + hostCapSlack - w.outN; int64(len(p)) > room {
			p = p[:max(room, 0)]
			w.outCut = true
			notice = "\noutput truncated at " + formatBytes(w.outCap) + " by the host\n"
		}
		w.outN += int64(len(p))
	}
	errOut := w.stderr
	w.mu.Unlock()
	if out != nil && len(p) > 0 {
		out.Write(p) // a failing writer loses the output, not the session
	}
	if notice != "" && errOut != nil {
		errOut.Write([]byte(notice))
	}
}

func (w *Worker) writerLocked(typ byte) io.Writer {
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

// drainStdio forwards what the worker wrote to its fd 1 and fd 2 so far.
// It asks the kernel once whether either pipe holds anything (one poll,
// where a drain of each was two reads that nearly always found nothing).
func (w *Worker) drainStdio() {
	fds := [2]unix.PollFd{{Fd: int32(w.stdio[0].fd), Events: unix.POLLIN}, {Fd: int32(w.stdio[1].fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds[:], 0)
	for i, p := range w.stdio {
		// On an error, or a pipe without a descriptor (poll skips a
		// negative one), drain looks itself.
		if err != nil || p.fd < 0 || n > 0 && fds[i].Revents != 0 {
			p.drain()
		}
	}
}

// wait reaps the worker, then releases what it held.
func (w *Worker) wait(readerDone <-chan struct{}) {
	awaitExit(w.cmd.Process.Pid) // without holding a thread; Wait then reaps at once
	err := w.cmd.Wait()
	for _, p := range w.stdio {
		<-p.end // the worker's ends closed with it: all it wrote is forwarded
	}
	w.conn.Close() // ends the reader if the worker left the socket open
	w.connOut.Close()
	<-readerDone
	for _, p := range w.stdio {
		p.close()
	}
	w.mu.Lock()
	w.waitErr = err
	mem := w.mem
	w.mu.Unlock()
	if mem != nil {
		if reason := mem.limitReason(); reason != "" {
			w.setKillReason(reason)
		}
		mem.release()
	}
	hostDiskWatchers.forget(w)
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

// protocolError ends the worker for a protocol error; the first one is
// the reason.
func (w *Worker) protocolError(err error) {
	w.mu.Lock()
	if w.protoErr == nil && w.killReason == "" {
		w.protoErr = err
	}
	w.mu.Unlock()
	w.kill(err.Error())
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
	return w.newCrash()
}

// newCrash is the *CrashError of the ended worker.
func (w *Worker) newCrash() *CrashError {
	w.mu.Lock()
	protoErr := w.protoErr
	w.mu.Unlock()
	status, _ := w.ownExit()
	return &CrashError{Reason: w.crashReason(), Status: status, err: protoErr}
}

// ownExit reports the status the ended worker exited with when it ended by
// itself: not killed (by the host, the kernel or a signal) and no protocol
// error. Called once dead is closed.
func (w *Worker) ownExit() (status int, ok bool) {
	w.mu.Lock()
	killed := w.killReason != "" || w.protoErr != nil
	w.mu.Unlock()
	ps := w.cmd.ProcessState
	if killed || ps == nil || !ps.Exited() {
		return 0, false
	}
	return ps.ExitCode(), true
}

// exitOf turns the crash of a worker that called os.Exit itself into the
// *ExitError of the cell: it exited by itself and the Go runtime reported
// no crash (a fatal panic or error also exits, with status 2). Other
// errors are returned as they are.
func (w *Worker) exitOf(err error) error {
	var crash *CrashError
	if !errors.As(err, &crash) || errors.As(err, new(*InterruptedError)) {
		return err
	}
	if status, ok := w.ownExit(); ok && !w.log.sawCrash() {
		return &ExitError{Code: status, Process: true}
	}
	return err
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

func (e *InterruptedError) Error() string {
	if e.crash == nil {
		return "interrupted"
	}
	return "interrupted; " + e.crash.Error()
}

// Unwrap gives the interrupt's context error and the crash, those set: a
// nil *CrashError in the list would be a non-nil error.
func (e *InterruptedError) Unwrap() []error {
	var errs []error
	if e.ctxErr != nil {
		errs = append(errs, e.ctxErr)
	}
	if e.crash != nil {
		errs = append(errs, e.crash)
	}
	return errs
}

// request sends a request and awaits its reply (see send and await).
func (w *Worker) request(ctx context.Context, typ byte, payload []byte, reply byte, maxRecords int) (ev event, canceled bool, err error) {
	id, err := w.send(typ, payload, reply, maxRecords)
	if err != nil {
		return ev, false, err
	}
	return w.await(ctx, id)
}

// send sends a request whose reply is of type reply and returns its id;
// maxRecords bounds the Records of a replay's reply (-1: no bound). Output
// counts against the cap from here.
func (w *Worker) send(typ byte, payload []byte, reply byte, maxRecords int) (uint32, error) {
	select {
	case <-w.replies: // of a request given up on: never this one's
	default:
	}
	w.mu.Lock()
	w.outN, w.outCut = 0, false
	w.mu.Unlock()
	w.dropOutput.Store(false)
	id := w.dec.begin(reply, maxRecords)
	if err := w.fw.send(typ, id, payload); err != nil {
		return id, w.crashError()
	}
	return id, nil
}

// await waits for the reply of request id. When ctx ends it interrupts the
// worker and waits for the reply a little more, then ends the worker.
// canceled is true when the request was interrupted.
func (w *Worker) await(ctx context.Context, id uint32) (ev event, canceled bool, err error) {
	select {
	case ev := <-w.replies:
		return ev, false, nil
	case <-w.dead:
		return ev, false, w.crashError()
	case <-ctx.Done():
	}
	w.dropOutput.Store(true)
	w.fw.send(msgInterrupt, id, nil)
	t := time.NewTimer(interruptGrace)
	defer t.Stop()
	select {
	case ev := <-w.replies:
		if ev.res.Kind != resStuck {
			return ev, true, nil
		}
	case <-w.dead:
		return ev, true, w.crashError()
	case <-t.C:
	}
	w.kill("interrupted cell did not stop")
	if err := w.crashError(); !errors.As(err, new(*CrashError)) {
		return ev, true, err
	}
	return ev, true, &InterruptedError{ctxErr: ctx.Err(), crash: w.newCrash()}
}

// awaitWithin waits for the reply of a request that only the worker's own
// trouble can hold up (warm, init): past timeout the worker is ended.
func (w *Worker) awaitWithin(ctx context.Context, timeout time.Duration, what string) (event, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case ev := <-w.replies:
		return ev, nil
	case <-w.dead:
		return event{}, w.crashError()
	case <-ctx.Done():
		return event{}, ctx.Err()
	case <-t.C:
		w.kill(fmt.Sprintf("%s not answered within %v", what, timeout))
		<-w.dead
		return event{}, fmt.Errorf("%s not answered within %v", what, timeout)
	}
}

// Eval runs one cell in the worker; with show, the values of expression
// statements are written to Stdout. It returns an *EvalError, an
// *ExitError, ctx.Err() when interrupted, an *InterruptedError when the
// interrupted cell did not stop, a *CrashError when the worker died or
// broke the protocol (the caller starts a new worker and replays the
// journal), ErrClosed, or nil.
func (w *Worker) Eval(ctx context.Context, cell string, show bool) error {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return w.exitOf(err)
	}
	if err := ctx.Err(); err != nil {
		return err // not even sent: a cell started already canceled may not stop
	}
	if len(cell) > maxCell {
		return &EvalError{Msg: fmt.Sprintf("cell too large: %d bytes, at most %d", len(cell), maxCell)}
	}
	payload := make([]byte, 1, 1+len(cell))
	if show {
		payload[0] = 1
	}
	payload = append(payload, cell...)
	ev, canceled, err := w.request(ctx, msgEval, payload, msgResult, 0)
	if err != nil {
		return w.exitOf(err)
	}
	if ev.res.Kind == resCanceled {
		if canceled {
			return ctx.Err()
		}
		return context.Canceled
	}
	return ev.res.err()
}

// Complete returns the completions of word, as (*Interp).Complete; nil when
// the worker does not answer in time.
func (w *Worker) Complete(word string) (cands []string) {
	w.completeMu.Lock()
	defer w.completeMu.Unlock()
	defer func() {
		if v := recover(); v != nil {
			w.protocolError(protoErrorf("completion panicked: %v", v))
			cands = nil
		}
	}()
	if w.usable() != nil {
		return nil
	}
	select {
	case <-w.completions: // a late reply of an earlier call
	default:
	}
	id := w.dec.beginComplete(word)
	if w.fw.send(msgComplete, id, []byte(word)) != nil {
		return nil
	}
	t := time.NewTimer(completeWait)
	defer t.Stop()
	for {
		select {
		case ev := <-w.completions:
			if ev.id == id {
				return ev.cands
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

// Close ends the worker: it asks it to quit, kills it if it has not
// within closeGrace (a stopped or spinning worker too), and waits for its
// end. A request in flight returns ErrClosed. Safe to call twice and
// concurrently.
func (w *Worker) Close() error {
	w.closeOnce.Do(func() {
		w.closing.Store(true)
		// The kill is armed first: the requests' socket is blocking, and
		// a worker that reads nothing holds up the quit (and any request
		// being written) until it is killed.
		t := time.AfterFunc(closeGrace, func() { w.kill("closed") })
		defer t.Stop()
		w.fw.send(msgQuit, 0, nil)
		<-w.dead
	})
	<-w.dead
	return nil
}
