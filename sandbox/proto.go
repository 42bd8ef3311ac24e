package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The worker protocol runs on a socket of its own (fd 3 in the worker),
// never on the code's stdout or stderr. Every message is one frame:
//
//	type (1 byte) | payload length (4 bytes, big endian) | payload
//
// The host sends one request at a time (warm, init, eval, udf call, udf list),
// plus interrupt and complete at any time; the worker streams the code's
// output as frames before the request's reply, so output and result arrive
// in the order they happened.
const (
	// host → worker
	msgWarm      = 'W' // idle worker: make and drop an interpreter, so that init is faster
	msgInit      = 'I' // JSON initMsg: session dir, allowlist, limits; applies Landlock
	msgEval      = 'E' // show flag byte + cell source
	msgReplay    = 'P' // JSON []string: cells run in order, output discarded (restore)
	msgInterrupt = 'X' // cancel the running eval or udf call
	msgComplete  = 'C' // word to complete
	msgUDFList   = 'L' // list the session's UDFs
	msgUDFCall   = 'U' // UDF name: start a streaming call
	msgUDFData   = 'D' // input records of the call (any split); the worker acks each
	msgUDFEnd    = 'Z' // end of the call's input
	msgQuit      = 'Q' // exit now

	// worker → host
	msgReady       = 'R' // handshake: the worker runs and reads requests
	msgWarmDone    = 'h' // warm reply
	msgInitDone    = 'i' // init reply: empty, or the error text
	msgStdout      = 'o' // the code's output and the values shown
	msgStderr      = 'e' // the code's error output and notices
	msgResult      = 'r' // JSON resultMsg: how the eval ended
	msgCompletions = 'c' // the word, then the candidates, NUL-separated
	msgUDFEntries  = 'l' // JSON []udf.Entry
	msgUDFOut      = 'u' // result lines of the udf call
	msgUDFErr      = 'w' // error lines of the udf call
	msgUDFAck      = 'a' // one msgUDFData frame was consumed: one more may be sent
	msgUDFDone     = 'd' // JSON resultMsg with Records and Failed
)

const (
	maxFrame   = 1 << 20  // larger payloads are a protocol error
	chunkBytes = 32 << 10 // output and udf input are sent in frames of at most this
	udfWindow  = 8        // udf input frames in flight before the host waits for an ack
)

var errFrameTooLarge = errors.New("sandbox: protocol frame too large")

// frameWriter writes whole frames; it is safe for concurrent use.
type frameWriter struct {
	mu  sync.Mutex // serializes frames on w
	w   io.Writer
	buf []byte
}

func (f *frameWriter) send(typ byte, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sendLocked(typ, payload)
}

func (f *frameWriter) sendLocked(typ byte, payload []byte) error {
	f.buf = append(f.buf[:0], typ, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(f.buf[1:5], uint32(len(payload)))
	f.buf = append(f.buf, payload...)
	_, err := f.w.Write(f.buf)
	if cap(f.buf) > 2*chunkBytes {
		f.buf = nil // don't keep a big cell's buffer
	}
	return err
}

// sendChunks sends p as frames of at most chunkBytes.
func (f *frameWriter) sendChunks(typ byte, p []byte) error {
	for len(p) > 0 {
		n := min(len(p), chunkBytes)
		if err := f.send(typ, p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// readFrame reads one frame; the payload is a new slice.
func readFrame(r io.Reader) (typ byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, nil, errFrameTooLarge
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("read frame: %w", io.ErrUnexpectedEOF)
	}
	return hdr[0], payload, nil
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

// resultOf encodes the error of an eval for the host.
func resultOf(err error) resultMsg {
	var ev *EvalError
	var ee *ExitError
	switch {
	case err == nil:
		return resultMsg{Kind: resOK}
	case errors.As(err, &ev):
		return resultMsg{Kind: resEval, Line: ev.Line, Col: ev.Col, Msg: ev.Msg, Compile: ev.compile}
	case errors.As(err, &ee):
		return resultMsg{Kind: resExit, Code: ee.Code}
	default:
		return resultMsg{Kind: resError, Msg: err.Error()}
	}
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

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs of this file are marshalled
	}
	return b
}
