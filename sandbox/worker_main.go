package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/replhost/replhost/udf"
	"github.com/traefik/yaegi/interp"
)

// stuckGrace is how long the worker waits, after an interrupted cell's Eval
// returned, for the cell's goroutine to end. yaegi returns at once but
// stops only interpreted code: a cell blocked in a native call
// (time.Sleep(time.Hour)) would run on, and later race with the next cell.
const stuckGrace = 300 * time.Millisecond

// WorkerMain is the worker process, `replhost worker`: it serves the
// protocol on fd 3 until the host says quit or goes away, and returns the
// exit code. It applies its confinement (Landlock, working directory,
// memory limit) when the host tells it its session, before any code runs.
func WorkerMain() int {
	conn := os.NewFile(3, "replhost-proto")
	if conn == nil {
		fmt.Fprintln(os.Stderr, "replhost worker: no protocol socket on fd 3")
		return 2
	}
	fw := &frameWriter{w: conn}
	ws := &workerSide{fw: fw, out: &cellOutput{fw: fw}}
	if err := fw.send(msgReady, nil); err != nil {
		return 2
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		typ, p, err := readFrame(br)
		if err != nil {
			// The host is gone (or broke the protocol): whatever runs
			// ends with the process. This is the parent watch that backs
			// up Pdeathsig.
			return 0
		}
		if typ == msgQuit {
			return 0
		}
		ws.handle(typ, p)
	}
}

// workerSide is the state of the worker: the session's interpreter and the
// request in flight. Frames are handled one at a time by the reading
// goroutine; an eval or udf call runs in a goroutine of its own so that
// interrupt and complete are served meanwhile.
type workerSide struct {
	fw  *frameWriter
	out *cellOutput

	// ready is closed once the session's interpreter is made (in, reg,
	// inErr set): init confines the worker and answers at once, and the
	// interpreter is built beside the host showing its prompt.
	ready chan struct{}
	inErr error

	mu        sync.Mutex // guards the fields below
	in        *Interp
	reg       *udf.Registry
	outputCap int64
	cancel    context.CancelFunc // of the eval or udf call in flight
	udfIn     *udfInput          // input of the udf call in flight
}

func (ws *workerSide) handle(typ byte, p []byte) {
	switch typ {
	case msgWarm:
		ws.warm()
		ws.fw.send(msgWarmDone, nil)
	case msgInit:
		err := ws.init(p)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		ws.fw.send(msgInitDone, []byte(msg))
		// Most sessions sit idle: give back the garbage of making the
		// interpreter (and of warm), after the reply and beside the first
		// cell.
		go debug.FreeOSMemory()
	case msgEval:
		if len(p) == 0 {
			return
		}
		// begin here, not in the goroutine, so that an interrupt that
		// follows at once finds the cell's cancel.
		ctx, end := ws.begin()
		go ws.eval(ctx, end, p[0] == 1, string(p[1:]))
	case msgReplay:
		ctx, end := ws.begin()
		go ws.replay(ctx, end, p)
	case msgInterrupt:
		ws.mu.Lock()
		if ws.cancel != nil {
			ws.cancel()
		}
		ws.mu.Unlock()
	case msgComplete:
		ws.complete(string(p))
	default:
		ws.handleUDF(typ, p)
	}
}

func (ws *workerSide) init(p []byte) error {
	var m initMsg
	if err := json.Unmarshal(p, &m); err != nil {
		return fmt.Errorf("bad init: %w", err)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.ready != nil {
		return errors.New("worker already has a session")
	}
	if m.Memory > 0 {
		// The collector works hard before the cap kills; unbounded
		// recursion ends with "goroutine stack exceeds" before the cap,
		// not with the cap (the default limit is 1 GB).
		debug.SetMemoryLimit(m.Memory / 10 * 9)
		debug.SetMaxStack(int(min(m.Memory/8, 1<<30)))
	}
	dir, files, err := confineWorker(m)
	if err != nil {
		return err
	}
	m.Dir = dir
	ws.outputCap = m.OutputCap
	ws.ready = make(chan struct{})
	go ws.makeInterp(m, files)
	return nil
}

// makeInterp builds the session's interpreter, once confined.
func (ws *workerSide) makeInterp(m initMsg, files string) {
	defer close(ws.ready)
	reg := &udf.Registry{}
	stderr := streamWriter{ws.out, msgStderr}
	in, err := NewInterp(Options{
		Dir:     m.Dir,
		WorkDir: files, // relative names resolve in the process's own working directory
		Allow:   NewAllowlist(m.Allow),
		Stdout:  streamWriter{ws.out, msgStdout},
		Stderr:  stderr,
		Use:     []interp.Exports{udf.Exports(reg, stderr)},
		// An interrupted cell not stopped by then is stuck: the host ends
		// this worker and restores the session.
		StopWait: stuckGrace,
	})
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if err != nil {
		ws.inErr = err
		return
	}
	ws.in, ws.reg = in, reg
}

// session waits for the session's interpreter; nil before init.
func (ws *workerSide) session() (*Interp, *udf.Registry, error) {
	ws.mu.Lock()
	ready := ws.ready
	ws.mu.Unlock()
	if ready == nil {
		return nil, nil, errors.New("worker has no session")
	}
	<-ready
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.in, ws.reg, ws.inErr
}

// warm makes an interpreter and drops it: a fresh process takes about
// twice as long for its first interpreter as for the next (page faults,
// heap growth), and an idle worker of the pool has the time.
func (ws *workerSide) warm() {
	ws.mu.Lock()
	idle := ws.ready == nil
	ws.mu.Unlock()
	if idle {
		NewInterp(Options{})
	}
}

// begin starts a request: it returns a context that an interrupt cancels.
func (ws *workerSide) begin() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.cancel = cancel
	ws.out.reset(ws.outputCap)
	return ctx, func() {
		ws.mu.Lock()
		ws.cancel = nil
		ws.mu.Unlock()
		cancel()
	}
}

func (ws *workerSide) eval(ctx context.Context, end func(), show bool, cell string) {
	in, _, err := ws.session()
	res := resultMsg{Kind: resError}
	switch {
	case err != nil:
		res.Msg = err.Error()
	case ctx.Err() != nil:
		// Interrupted before it began: don't start it, since yaegi may
		// not stop code it starts with a canceled context.
		res = resultMsg{Kind: resCanceled}
	default:
		err := in.Eval(ctx, cell, show)
		res = resultOf(err)
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			res = resultMsg{Kind: resCanceled}
			if in.Stuck() {
				res.Kind = resStuck
			}
		}
	}
	end()
	ws.fw.send(msgResult, mustJSON(res))
}

func (ws *workerSide) complete(word string) {
	in, _, _ := ws.session()
	var cands []string
	if in != nil {
		cands = in.Complete(word)
	}
	ws.fw.send(msgCompletions, []byte(strings.Join(append([]string{word}, cands...), "\x00")))
}

// replay runs journal cells in order, without showing values, up to the
// first that fails; Records says how many ran.
func (ws *workerSide) replay(ctx context.Context, end func(), p []byte) {
	res := resultMsg{Kind: resOK}
	ran := 0
	var cells []string
	in, _, err := ws.session()
	switch {
	case err != nil:
		res = resultMsg{Kind: resError, Msg: err.Error()}
	case json.Unmarshal(p, &cells) != nil:
		res = resultMsg{Kind: resError, Msg: "bad replay request"}
	default:
		for _, c := range cells {
			if ctx.Err() != nil {
				res = resultMsg{Kind: resCanceled}
				break
			}
			if err := in.Eval(ctx, c, false); err != nil {
				res = resultOf(err)
				if ctx.Err() != nil {
					res = resultMsg{Kind: resCanceled}
				}
				break
			}
			ran++
		}
	}
	res.Records = ran
	end()
	ws.fw.send(msgResult, mustJSON(res))
}
