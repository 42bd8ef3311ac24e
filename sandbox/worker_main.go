package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/replhost/replhost/lower"
	"github.com/replhost/replhost/udf"
	"github.com/traefik/yaegi/interp"
)

// stuckGrace is how long the worker waits, after an interrupted cell's Eval
// returned, for the cell's goroutine to end. yaegi returns at once but
// stops only interpreted code: a cell blocked in a native call
// (time.Sleep(time.Hour)) would run on, and later race with the next cell.
const stuckGrace = 300 * time.Millisecond

// WorkerMain is the worker process, `replhost worker`: it serves the
// protocol on fd 3 and fd 4 until the host says quit or goes away, and returns the
// exit code. It applies its confinement (Landlock, working directory,
// memory limit) when the host tells it its session, before any code runs.
func WorkerMain() int {
	// No heap profile is ever read from a worker: sampling one allocation
	// in 512 KiB took a traceback through yaegi's deep stacks each time.
	runtime.MemProfileRate = 0
	lower.GoPanicEndsProcess = true // a goroutine's panic ends the worker, as it ends a Go program
	conn, out, err := protocolSockets()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replhost worker:", err)
		return 2
	}
	fw := &frameWriter{w: out}
	ws := &workerSide{fw: fw, out: &cellOutput{fw: fw}, idle: &idleReleaser{delay: idleRelease, worth: heapSlack}, jobs: make(chan func())}
	go ws.serveJobs()
	// A goroutine's panic or os.Exit ends the worker (the host takes an
	// exit for the script's): the output held for the next frame goes
	// first.
	lower.BeforeProcessEnd = fw.flushHeld
	if workerTestHook != nil {
		ws.extra = workerTestHook(out)
	}
	hello := helloMsg{Protocol: protocolVersion, Build: buildID()}
	if os.Getenv(workerSourcesVar) != "" {
		hello.Sources = sourcesDigest()
	}
	if err := fw.send(msgReady, 0, mustJSON(hello)); err != nil {
		return 2
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		f, err := readFrame(br)
		if err != nil {
			// The host is gone (or broke the protocol): whatever runs
			// ends with the process. This is the parent watch that backs
			// up Pdeathsig.
			return 0
		}
		if f.typ == msgQuit {
			return 0
		}
		ws.handle(f)
	}
}

// workerTestHook, set by tests only, adds symbols to the session's
// interpreter that reach the protocol socket of the worker's frames: they
// model code that found a way to it, to test the host against forged
// frames.
var workerTestHook func(conn *os.File) interp.Exports

// workerSide is the state of the worker: the session's interpreter and the
// request in flight. Frames are handled one at a time by the reading
// goroutine; an eval or udf call runs in a goroutine of its own so that
// interrupt and complete are served meanwhile.
type workerSide struct {
	fw    *frameWriter
	out   *cellOutput
	extra interp.Exports // workerTestHook's
	idle  *idleReleaser  // gives memory back once no request ran for a while
	gc    *gcPacer       // GOGC from the live heap; nil until init sets a memory cap

	// ready is closed once the session's interpreter is made (in, reg,
	// inErr set): init confines the worker and answers at once, and the
	// interpreter is built beside the host showing its prompt.
	ready chan struct{}
	inErr error

	// pre is the interpreter warm made before the session was known, and
	// its UDF registry; init gives it the session (makeInterp).
	pre    *Interp
	preReg *udf.Registry

	mu        sync.Mutex // guards the fields below
	in        *Interp
	reg       *udf.Registry
	outputCap int64
	cancel    context.CancelFunc // of the eval or udf call in flight
	udfIn     *udfInput          // input of the udf call in flight

	jobs chan func() // to the request goroutine (serveJobs); unbuffered
}

// serveJobs runs the requests that run beside the reader (eval, replay),
// one after the other, on one goroutine for the worker's life: its stack
// stays grown to what the sandbox's parse and split of a cell need, where
// a new goroutine per request grew and copied its stack several times a
// cell (runtime.copystack was ~5 % of the worker's CPU).
func (ws *workerSide) serveJobs() {
	for job := range ws.jobs {
		job()
	}
}

// runJob runs job on the request goroutine, or on a new goroutine while
// that one is busy (a request the host sent while one runs, which it does
// not do): the reader never waits for a job.
func (ws *workerSide) runJob(job func()) {
	select {
	case ws.jobs <- job:
	default:
		go job()
	}
}

func (ws *workerSide) handle(f frame) {
	p := f.payload
	switch f.typ {
	case msgWarm:
		ws.warm()
		ws.fw.send(msgWarmDone, f.id, nil)
	case msgInit:
		err := ws.init(p)
		msg := ""
		if err != nil {
			msg = cutText(err.Error(), maxResultText)
		}
		// No collection here: a worker's first maps the collector's
		// metadata, more than the garbage of its start gives back (the idle
		// release decides, heapSlack).
		ws.fw.send(msgInitDone, f.id, []byte(msg))
	case msgEval:
		if len(p) == 0 {
			ws.fw.send(msgResult, f.id, mustJSON(resultMsg{Kind: resError, Msg: "empty eval request"}))
			return
		}
		// begin here, not in the goroutine, so that an interrupt that
		// follows at once finds the cell's cancel.
		ctx, end := ws.begin(f.id)
		show, cell := p[0] == 1, string(p[1:])
		ws.runJob(func() { ws.eval(ctx, end, f.id, show, cell) })
	case msgReplay:
		ctx, end := ws.begin(f.id)
		ws.runJob(func() { ws.replay(ctx, end, f.id, p) })
	case msgInterrupt:
		ws.mu.Lock()
		if ws.cancel != nil {
			ws.cancel()
		}
		ws.mu.Unlock()
	case msgComplete:
		ws.complete(f.id, string(p))
	case msgStats:
		ws.fw.send(msgStatsReply, f.id, ws.stats())
	default:
		ws.handleUDF(f)
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
	if err := CheckEnv(m.Env); err != nil {
		return err
	}
	if m.Memory > 0 {
		// The collector works hard before the cap kills; unbounded
		// recursion ends with "goroutine stack exceeds" before the cap,
		// not with the cap (see maxStack).
		debug.SetMemoryLimit(m.Memory / 10 * 9)
		debug.SetGCPercent(gcPercent(m.Memory))
		ws.gc = &gcPacer{ceiling: gcPercent(m.Memory), headroom: gcHeadroom}
		ws.gc.adjust()
		debug.SetMaxStack(maxStack(m.Memory))
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

// makeInterp gives the session its interpreter, once confined: the one
// warm made if the session allows no extra packages, else a new one.
func (ws *workerSide) makeInterp(m initMsg, files string) {
	defer close(ws.ready)
	var (
		in  *Interp
		reg *udf.Registry
		err = errors.New("no interpreter made yet")
	)
	if ws.pre != nil && len(m.Allow) == 0 {
		in, reg = ws.pre, ws.preReg
		err = in.adoptDir(m.Dir, m.Env)
	}
	ws.pre, ws.preReg = nil, nil
	if err != nil {
		in, reg, err = ws.newInterp(m.Dir, files, m.Allow, m.Env)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if err != nil {
		ws.inErr = err
		return
	}
	ws.in, ws.reg = in, reg
	dropSharedTables() // the session's interpreter holds its own copy
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

// newInterp makes an interpreter for the session in dir (none yet: "")
// with its UDF registry.
func (ws *workerSide) newInterp(dir, files string, allow, env []string) (*Interp, *udf.Registry, error) {
	reg := &udf.Registry{}
	stderr := streamWriter{ws.out, msgStderr}
	in, err := NewInterp(Options{
		Dir:     dir,
		WorkDir: files, // relative names resolve in the process's own working directory
		Allow:   NewAllowlist(allow).InWorker(),
		Env:     env,
		Stdout:  streamWriter{ws.out, msgStdout},
		Stderr:  stderr,
		Use:     append([]interp.Exports{udf.Exports(reg, stderr)}, ws.extra),
		// An interrupted cell not stopped by then is stuck: the host ends
		// this worker and restores the session.
		StopWait: stuckGrace,
	})
	return in, reg, err
}

// warm makes the interpreter of the session to come while the worker idles
// in the pool: the standard library's symbol tables are loaded once per
// worker, before the login that needs them. No code runs in it before init
// has confined the worker.
func (ws *workerSide) warm() {
	ws.mu.Lock()
	idle := ws.ready == nil
	ws.mu.Unlock()
	if idle && ws.pre == nil {
		ws.pre, ws.preReg, _ = ws.newInterp("", "", nil, nil)
	}
}

// begin starts request id: it returns a context that an interrupt cancels.
func (ws *workerSide) begin(id uint32) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ws.idle.begin()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.cancel = cancel
	ws.out.reset(ws.outputCap, id)
	return ctx, func() {
		ws.mu.Lock()
		ws.cancel = nil
		ws.mu.Unlock()
		cancel()
		ws.gcPacer().adjust()
		ws.idle.end()
	}
}

func (ws *workerSide) eval(ctx context.Context, end func(), id uint32, show bool, cell string) {
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
	ws.fw.send(msgResult, id, encodeResult(res))
}

func (ws *workerSide) complete(id uint32, word string) {
	in, _, _ := ws.session()
	reply := []byte(word)
	if in != nil {
		reply = completionReply(word, in.Complete(word))
	}
	ws.fw.send(msgCompletions, id, reply)
}

// completionReply joins word and its candidates within the bounds the host
// accepts: candidates too long are left out, the list is cut at the count
// or size limit.
func completionReply(word string, cands []string) []byte {
	b := []byte(word)
	n := 0
	for _, c := range cands {
		if len(c) > maxCandidate || strings.Contains(c, "\x00") {
			continue
		}
		if n == maxCompletions || len(b)+1+len(c) > maxCompletionBytes {
			break
		}
		b = append(append(b, 0), c...)
		n++
	}
	return b
}

// replay runs journal cells in order, without showing values, up to the
// first that fails; Records says how many ran.
func (ws *workerSide) replay(ctx context.Context, end func(), id uint32, p []byte) {
	res := resultMsg{Kind: resOK}
	ran := 0
	in, _, err := ws.session()
	cells, decodeErr := decodeReplay(p)
	switch {
	case err != nil:
		res = resultMsg{Kind: resError, Msg: err.Error()}
	case decodeErr != nil:
		res = resultMsg{Kind: resError, Msg: "bad replay request: " + decodeErr.Error()}
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
					if in.Stuck() {
						res.Kind = resStuck
					}
				}
				break
			}
			ran++
		}
	}
	res.Records = ran
	end()
	ws.fw.send(msgResult, id, encodeResult(res))
}
