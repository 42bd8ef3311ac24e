package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// The worker protocol runs on sockets of its own, one a direction (fd 3
// for requests and fd 4 for the worker's frames in the worker, moved at
// start to random high descriptors; see protoSockets), never on the
// code's stdout or stderr. Every message is one frame:
//
//	type (1 byte) | request id (4 bytes) | payload length (4 bytes) | payload
//
// integers big endian. The worker's first frame is msgReady with its
// helloMsg (protocol version and build id): the host refuses a worker that
// is not the build it expects (binaryPin). The host sends one request at a time (warm, init,
// eval, replay, udf list, udf call), each with a new id that its reply
// carries, plus interrupt at any time and complete (ids of their own)
// alongside; the worker streams the code's output as frames before the
// request's reply, so output and result arrive in the order they happened.
//
// The host trusts nothing it reads (the code in the worker might have
// reached the socket): every frame type and size, every payload, every id
// is checked by decodeWorkerFrame and the decoders of proto_host.go, and
// anything unexpected ends that worker with ErrProtocol.
const (
	// host → worker
	msgWarm      = 'W' // idle worker: make and drop an interpreter, so that init is faster
	msgInit      = 'I' // JSON initMsg: session dir, allowlist, limits; applies Landlock
	msgEval      = 'E' // show flag byte + cell source
	msgReplay    = 'P' // replayRequest: cells run in order, output discarded (restore)
	msgInterrupt = 'X' // cancel the running eval or udf call
	msgComplete  = 'C' // word to complete
	msgUDFList   = 'L' // list the session's UDFs
	msgUDFCall   = 'U' // UDF name: start a streaming call
	msgUDFData   = 'D' // input records of the call (any split); the worker acks each
	msgUDFEnd    = 'Z' // end of the call's input
	msgQuit      = 'Q' // exit now
	msgStats     = 'S' // the worker's own figures (statsMsg)

	// worker → host
	msgReady       = 'R' // handshake: JSON helloMsg; the worker runs and reads requests
	msgWarmDone    = 'h' // warm reply
	msgInitDone    = 'i' // init reply: empty, or the error text
	msgStdout      = 'o' // the code's output and the values shown
	msgStderr      = 'e' // the code's error output and notices
	msgResult      = 'r' // JSON resultMsg: how the eval or replay ended
	msgCompletions = 'c' // the word, then the candidates, NUL-separated
	msgUDFEntries  = 'l' // JSON []udf.Entry
	msgUDFOut      = 'u' // result lines of the udf call
	msgUDFErr      = 'w' // error lines of the udf call
	msgUDFAck      = 'a' // one msgUDFData frame was consumed: one more may be sent
	msgUDFDone     = 'd' // JSON resultMsg with Records and Failed
	msgStatsReply  = 's' // JSON statsMsg
)

// protocolVersion changes with every change of the frames or payloads.
const protocolVersion = 5

const (
	frameHeader = 9             // type, id, length
	maxFrame    = 1<<20 + 4<<10 // larger payloads are a protocol error; a 1 MiB cell (repl.MaxCell) fits
	chunkBytes  = 32 << 10      // output and udf input are sent in frames of at most this
	udfWindow   = 8             // udf input frames in flight before the host waits for an ack
)

var errFrameTooLarge = errors.New("frame too large")

// frame is one message of the protocol.
type frame struct {
	typ     byte
	id      uint32 // of the request; output frames carry the one running
	payload []byte
}

// frameWriter writes whole frames; it is safe for concurrent use. Frames
// given to hold wait, up to holdFor, for the next frame sent, and leave with
// it in one write: a fast cell's output and its result cost the worker one
// write and the host one read, where each frame was a write and a wakeup.
type frameWriter struct {
	mu      sync.Mutex // serializes frames on w; guards the fields below
	w       io.Writer
	buf     []byte
	held    bool        // buf holds frames not yet written
	timed   bool        // timer is armed for them
	timer   *time.Timer // writes held frames after holdFor
	holdErr error       // of a write of held frames by the timer
}

// holdFor is how long held output waits for the frames after it. The host
// holds terminal output as long (repl's linger) before it sends a packet.
const holdFor = 2 * time.Millisecond

// send writes the held frames and this one.
func (f *frameWriter) send(typ byte, id uint32, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendFrame(typ, id, payload)
	return f.flushLocked()
}

// hold queues a frame to go with the next one sent, or after holdFor; a
// chunk's worth of held frames is written at once.
func (f *frameWriter) hold(typ byte, id uint32, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.holdErr; err != nil {
		f.holdErr = nil
		return err
	}
	f.appendFrame(typ, id, payload)
	if len(f.buf) >= chunkBytes {
		return f.flushLocked()
	}
	f.held = true
	if !f.timed {
		f.timed = true
		if f.timer == nil {
			f.timer = time.AfterFunc(holdFor, f.flushHeld)
		} else {
			f.timer.Reset(holdFor)
		}
	}
	return nil
}

// holdForSend is hold for a frame that the caller's next send follows at
// once (a cell's shown value, before its result): it arms no timer, whose
// Reset wakes the runtime's sleeping netpoller (an eventfd write and a
// thread woken, per cell). A hold after it still arms one.
func (f *frameWriter) holdForSend(typ byte, id uint32, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.holdErr; err != nil {
		f.holdErr = nil
		return err
	}
	f.appendFrame(typ, id, payload)
	if len(f.buf) >= chunkBytes {
		return f.flushLocked()
	}
	f.held = true
	return nil
}

func (f *frameWriter) flushHeld() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.timed = false
	if f.held {
		f.holdErr = f.flushLocked()
	}
}

func (f *frameWriter) appendFrame(typ byte, id uint32, payload []byte) {
	if !f.held {
		f.buf = f.buf[:0]
	}
	n := len(f.buf)
	f.buf = append(f.buf, typ, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(f.buf[n+1:n+5], id)
	binary.BigEndian.PutUint32(f.buf[n+5:n+9], uint32(len(payload)))
	f.buf = append(f.buf, payload...)
}

func (f *frameWriter) flushLocked() error {
	f.held = false
	if f.timed {
		f.timed = false
		f.timer.Stop()
	}
	_, err := f.w.Write(f.buf)
	f.buf = f.buf[:0]
	if cap(f.buf) > 2*chunkBytes {
		f.buf = nil // don't keep a big cell's buffer
	}
	return err
}

// sendChunks sends p as frames of at most chunkBytes.
func (f *frameWriter) sendChunks(typ byte, id uint32, p []byte) error {
	return f.chunks(f.send, typ, id, p)
}

// holdChunks holds p as frames of at most chunkBytes; forSend: with
// holdForSend.
func (f *frameWriter) holdChunks(typ byte, id uint32, p []byte, forSend bool) error {
	if forSend {
		return f.chunks(f.holdForSend, typ, id, p)
	}
	return f.chunks(f.hold, typ, id, p)
}

func (f *frameWriter) chunks(send func(byte, uint32, []byte) error, typ byte, id uint32, p []byte) error {
	for len(p) > 0 {
		n := min(len(p), chunkBytes)
		if err := send(typ, id, p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// readFrame reads one frame of at most maxFrame payload bytes; the payload
// is a new slice.
func readFrame(r io.Reader) (frame, error) {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	f := frame{typ: hdr[0], id: binary.BigEndian.Uint32(hdr[1:5])}
	n := binary.BigEndian.Uint32(hdr[5:9])
	if n > maxFrame {
		return f, fmt.Errorf("%w: %q of %d bytes, at most %d", errFrameTooLarge, f.typ, n, maxFrame)
	}
	f.payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return f, fmt.Errorf("read frame: %w", io.ErrUnexpectedEOF)
	}
	return f, nil
}

// helloMsg is the payload of msgReady: who the worker is.
type helloMsg struct {
	Protocol int
	Build    string // buildID of the worker's binary
	Sources  string `json:",omitempty"` // sourcesDigest, when its environment asks (workerSourcesVar)
}

// statsMsg is the payload of msgStatsReply: what the worker counts of
// itself.
type statsMsg struct {
	IdleReleases int64 // times it gave memory back after idling (worker_idle.go)
	SharedTables int   // standard symbol tables the process holds beside its interpreter's
	IdleChecks   int64 // idle spells it looked at, released or not (worker_idle.go)
	GCPercent    int   // its GOGC now (worker_gc.go); 0 before init
}

// initMsg tells an idle worker its session and applies its confinement.
type initMsg struct {
	Dir       string   // session directory ROOT/<uuid>
	Allow     []string // extra packages of the allowlist
	Net       bool     // TCP bind/connect allowed by Landlock
	Memory    int64    // memory cap in bytes, for debug.SetMemoryLimit
	OutputCap int64    // bytes of output per cell
	UID, GID  int      `json:",omitempty"` // run as these (the worker starts as root); 0: stay
	Disk      int64    `json:",omitempty"` // RLIMIT_FSIZE: the session's disk quota
	Env       []string `json:",omitempty"` // the code's environment (CheckEnv), beside HOME
}

// Result kinds of resultMsg.
const (
	resOK       = "ok"
	resEval     = "eval"     // *EvalError
	resExit     = "exit"     // *ExitError
	resCanceled = "canceled" // interrupted; the cell stopped
	resStuck    = "stuck"    // interrupted, but the cell did not stop: end the worker
	resError    = "error"    // another error (a udf call that could not start)
)

// resultMsg is how an eval or udf call ended.
type resultMsg struct {
	Kind      string
	Line, Col int    `json:",omitempty"`
	Msg       string `json:",omitempty"`
	Compile   bool   `json:",omitempty"`
	Code      int    `json:",omitempty"`
	Records   int    `json:",omitempty"`
	Failed    int    `json:",omitempty"`
}

// resultOf encodes the error of an eval for the host, its text cut to what
// the host accepts.
func resultOf(err error) resultMsg {
	var ev *EvalError
	var ee *ExitError
	switch {
	case err == nil:
		return resultMsg{Kind: resOK}
	case errors.As(err, &ev):
		return resultMsg{Kind: resEval, Line: ev.Line, Col: ev.Col, Msg: cutText(ev.Msg, maxResultText), Compile: ev.compile}
	case errors.As(err, &ee):
		return resultMsg{Kind: resExit, Code: ee.Code}
	default:
		return resultMsg{Kind: resError, Msg: cutText(err.Error(), maxResultText)}
	}
}

// cutText cuts s to at most n bytes, at a rune boundary, marked with "…".
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-len("…")]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1] // a rune cut short
	}
	return s + "…"
}

// err decodes the result on the host; canceled results are handled by the caller.
func (r resultMsg) err() error {
	switch r.Kind {
	case resOK:
		return nil
	case resEval:
		return &EvalError{Line: r.Line, Col: r.Col, Msg: r.Msg, compile: r.Compile}
	case resExit:
		return &ExitError{Code: r.Code}
	default:
		return errors.New(r.Msg)
	}
}

// okResult is the encoded resultMsg of a cell that ran well.
var okResult = mustJSON(resultMsg{Kind: resOK})

// encodeResult is mustJSON(r), without encoding the common okResult.
func encodeResult(r resultMsg) []byte {
	if r == (resultMsg{Kind: resOK}) {
		return okResult
	}
	return mustJSON(r)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs of this file are marshalled
	}
	return b
}
