package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/replhost/replhost/udf"
)

// ErrProtocol is the error of a worker that broke the protocol: a frame of
// an unknown type or size, a payload that does not decode or is out of
// bounds, a reply with the wrong id or none asked for. The host ends that
// worker at once; its *CrashError says "protocol error: ..." and
// errors.Is(err, ErrProtocol) holds. It says the worker misbehaved (the
// code in it may have reached the socket), not that the cell failed.
var ErrProtocol = errors.New("sandbox: worker protocol error")

// protocolError is one way a worker broke the protocol; it is ErrProtocol.
type protocolError struct{ detail string }

func (e *protocolError) Error() string        { return "protocol error: " + e.detail }
func (e *protocolError) Is(target error) bool { return target == ErrProtocol }

func protoErrorf(format string, args ...any) error {
	return &protocolError{detail: fmt.Sprintf(format, args...)}
}

// Bounds of what the host accepts from a worker; the worker keeps to them.
const (
	maxHello           = 1 << 10
	maxResultText      = 16 << 10               // of resultMsg.Msg and the init reply
	maxResultFrame     = 6*maxResultText + 1024 // JSON escapes a byte to at most 6
	maxLineCol         = 1 << 24
	maxCompletions     = 4096 // candidates in one reply
	maxCompletionBytes = 256 << 10
	maxCandidate       = 1 << 10 // bytes of one candidate
	maxUDFEntries      = 4096
	maxUDFText         = 1 << 10 // bytes of a udf name or signature
	maxStats           = 256
)

// workerFrameLimit is the largest payload of each frame type a worker may
// send; -1 for the types it may not send at all.
var workerFrameLimit = func() (l [256]int) {
	for i := range l {
		l[i] = -1
	}
	l[msgReady] = maxHello
	l[msgWarmDone] = 0
	l[msgInitDone] = maxResultText
	l[msgStdout], l[msgStderr], l[msgUDFOut], l[msgUDFErr] = chunkBytes, chunkBytes, chunkBytes, chunkBytes
	l[msgResult], l[msgUDFDone] = maxResultFrame, maxResultFrame
	l[msgCompletions] = maxCompletionBytes
	l[msgUDFEntries] = maxFrame
	l[msgUDFAck] = 0
	l[msgStatsReply] = maxStats
	return l
}()

// readWorkerFrame reads one frame from a worker, its type and size checked
// on the header, before the payload is read.
func readWorkerFrame(r io.Reader) (frame, error) {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	f := frame{typ: hdr[0], id: binary.BigEndian.Uint32(hdr[1:5])}
	n := binary.BigEndian.Uint32(hdr[5:9])
	limit := workerFrameLimit[f.typ]
	if limit < 0 {
		return f, protoErrorf("unknown frame type %q", f.typ)
	}
	if int64(n) > int64(limit) {
		return f, protoErrorf("%q frame of %d bytes, at most %d", f.typ, n, limit)
	}
	f.payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return f, fmt.Errorf("read frame: %w", io.ErrUnexpectedEOF)
	}
	return f, nil
}

// pendingRequest is the request in flight: the reply it waits for.
type pendingRequest struct {
	id         uint32
	reply      byte // the frame type of its reply
	maxRecords int  // replay: the cells sent; udf call: no bound (-1)
}

// event is a frame of the worker, checked and decoded.
type event struct {
	typ     byte
	id      uint32
	out     []byte      // output frames
	hello   helloMsg    // msgReady
	text    string      // msgInitDone
	res     resultMsg   // msgResult, msgUDFDone
	cands   []string    // msgCompletions
	entries []udf.Entry // msgUDFEntries
	stats   statsMsg    // msgStatsReply
}

// hostDecoder reads and checks the frames of one worker against what the
// host asked: it is the whole of the host's trust boundary. Its methods are
// safe for concurrent use: the reader calls next, the requests begin and end.
type hostDecoder struct {
	r   io.Reader
	src *countingReader // under r: counts the reads of the socket

	mu           sync.Mutex // guards the fields below
	ready        bool       // msgReady was read
	nextID       uint32
	req          *pendingRequest // nil: no request in flight
	completeSent uint32          // id of the last Complete sent
	completeGot  uint32          // id of the last completion read
	completeWord string          // the word of completeSent
	udfUnacked   int             // data frames of the udf call not yet acked
}

func newHostDecoder(r io.Reader) *hostDecoder {
	src := &countingReader{r: r}
	return &hostDecoder{r: bufio.NewReaderSize(src, 64<<10), src: src}
}

// countingReader counts the reads that returned data. Only the decoder's
// reading goroutine reads it.
type countingReader struct {
	r     io.Reader
	reads uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.reads++
	}
	return n, err
}

// reads is the number of reads of the stream that returned data so far:
// frames decoded under the same number came in one read. Called by the
// goroutine that calls next.
func (d *hostDecoder) reads() uint64 { return d.src.reads }

// begin records a request about to be sent and returns its id.
func (d *hostDecoder) begin(reply byte, maxRecords int) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nextID++
	d.req = &pendingRequest{id: d.nextID, reply: reply, maxRecords: maxRecords}
	d.udfUnacked = 0
	return d.nextID
}

// beginComplete records a Complete about to be sent and returns its id.
func (d *hostDecoder) beginComplete(word string) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.completeSent++
	d.completeWord = word
	return d.completeSent
}

// sentUDFData counts a data frame of the udf call in flight.
func (d *hostDecoder) sentUDFData() {
	d.mu.Lock()
	d.udfUnacked++
	d.mu.Unlock()
}

// next reads the worker's next frame and checks it. It returns ok false for
// a frame that is valid but of no use any more (a late completion). Any
// error but the end of the stream is a *protocolError.
func (d *hostDecoder) next() (ev event, ok bool, err error) {
	f, err := readWorkerFrame(d.r)
	if err != nil {
		return ev, false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ev = event{typ: f.typ, id: f.id}
	if !d.ready && f.typ != msgReady {
		return ev, false, protoErrorf("%q frame before the handshake", f.typ)
	}
	switch f.typ {
	case msgReady:
		if d.ready {
			return ev, false, protoErrorf("second handshake")
		}
		d.ready = true
		ev.hello, err = decodeHello(f.payload)
		return ev, err == nil, err
	case msgStdout, msgStderr:
		ev.out = f.payload
		return ev, true, nil
	case msgUDFOut, msgUDFErr:
		// A call's output ends before its reply; any later is dropped.
		ev.out = f.payload
		return ev, d.req != nil && d.req.reply == msgUDFDone, nil
	case msgUDFAck:
		if d.req == nil || d.req.reply != msgUDFDone || f.id != d.req.id || d.udfUnacked == 0 {
			return ev, false, protoErrorf("udf ack %d with no input of that call unacked", f.id)
		}
		d.udfUnacked--
		return ev, true, nil
	case msgCompletions:
		if f.id <= d.completeGot || f.id > d.completeSent {
			return ev, false, protoErrorf("completion reply %d; last asked %d, last read %d", f.id, d.completeSent, d.completeGot)
		}
		d.completeGot = f.id
		if f.id != d.completeSent {
			return ev, false, nil // of a Complete that gave up waiting
		}
		ev.cands, err = decodeCompletions(f.payload, d.completeWord)
		return ev, err == nil, err
	}
	// A reply: to the request in flight, and only once.
	req := d.req
	switch {
	case req == nil:
		return ev, false, protoErrorf("reply %q with no request in flight", f.typ)
	case f.id != req.id:
		return ev, false, protoErrorf("reply %q has id %d; the request in flight is %d", f.typ, f.id, req.id)
	case f.typ != req.reply:
		return ev, false, protoErrorf("reply %q to a request that wants %q", f.typ, req.reply)
	}
	d.req = nil
	switch f.typ {
	case msgWarmDone:
	case msgInitDone:
		ev.text = string(f.payload)
	case msgResult:
		ev.res, err = decodeResult(f.payload, evalKinds, req.maxRecords)
	case msgUDFDone:
		ev.res, err = decodeResult(f.payload, udfKinds, req.maxRecords)
	case msgUDFEntries:
		ev.entries, err = decodeUDFEntries(f.payload)
	case msgStatsReply:
		ev.stats, err = decodeStats(f.payload)
	}
	return ev, err == nil, err
}

// Result kinds a reply may carry, by request.
var (
	evalKinds = []string{resOK, resEval, resExit, resCanceled, resStuck, resError}
	udfKinds  = []string{resOK, resCanceled, resError}
)

// strictJSON decodes p into v: one value, no unknown fields, nothing after.
func strictJSON(p []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}

func decodeHello(p []byte) (helloMsg, error) {
	var h helloMsg
	if err := strictJSON(p, &h); err != nil {
		return h, protoErrorf("handshake: %v", err)
	}
	return h, nil
}

// decodeResult decodes and bounds a resultMsg. maxRecords >= 0 is a replay
// of that many cells: Records counts those that ran, all of them when it
// ended well. maxRecords < 0 is a udf call: any count, Failed at most it.
func decodeResult(p []byte, kinds []string, maxRecords int) (resultMsg, error) {
	var r resultMsg
	if bytes.Equal(p, okResult) {
		r.Kind = resOK // the reply of nearly every cell, spared the JSON decoder; checked below as any
	} else if err := strictJSON(p, &r); err != nil {
		return r, protoErrorf("result: %v", err)
	}
	known := false
	for _, k := range kinds {
		known = known || r.Kind == k
	}
	switch {
	case !known:
		return r, protoErrorf("result of kind %q", cutText(r.Kind, 64))
	case r.Line < 0 || r.Line > maxLineCol || r.Col < 0 || r.Col > maxLineCol:
		return r, protoErrorf("result at line %d column %d", r.Line, r.Col)
	case r.Code < math.MinInt32 || r.Code > math.MaxInt32:
		return r, protoErrorf("exit code %d", r.Code)
	case len(r.Msg) > maxResultText:
		return r, protoErrorf("result text of %d bytes, at most %d", len(r.Msg), maxResultText)
	case r.Records < 0 || r.Failed < 0 || r.Failed > r.Records:
		return r, protoErrorf("result of %d records, %d failed", r.Records, r.Failed)
	case maxRecords >= 0 && r.Records > maxRecords:
		return r, protoErrorf("result of %d records for a request of %d", r.Records, maxRecords)
	case maxRecords >= 0 && r.Kind == resOK && r.Records != maxRecords:
		return r, protoErrorf("replay of %d cells ended well after %d", maxRecords, r.Records)
	}
	return r, nil
}

// decodeCompletions splits a completion reply: the word asked, then at
// most maxCompletions candidates of at most maxCandidate bytes.
func decodeCompletions(p []byte, word string) ([]string, error) {
	got, rest, _ := strings.Cut(string(p), "\x00")
	if got != word {
		return nil, protoErrorf("completions of %q for %q", cutText(got, 64), cutText(word, 64))
	}
	if rest == "" && !bytes.HasSuffix(p, []byte{0}) {
		return nil, nil
	}
	if n := strings.Count(rest, "\x00") + 1; n > maxCompletions {
		return nil, protoErrorf("%d completions, at most %d", n, maxCompletions)
	}
	cands := strings.Split(rest, "\x00")
	for _, c := range cands {
		if len(c) > maxCandidate {
			return nil, protoErrorf("completion of %d bytes, at most %d", len(c), maxCandidate)
		}
	}
	return cands, nil
}

func decodeStats(p []byte) (statsMsg, error) {
	var s statsMsg
	if err := strictJSON(p, &s); err != nil {
		return s, protoErrorf("stats: %v", err)
	}
	if s.IdleReleases < 0 || s.SharedTables < 0 {
		return s, protoErrorf("stats: %d idle releases, %d shared tables", s.IdleReleases, s.SharedTables)
	}
	return s, nil
}

func decodeUDFEntries(p []byte) ([]udf.Entry, error) {
	var list []udf.Entry
	if err := strictJSON(p, &list); err != nil {
		return nil, protoErrorf("udf list: %v", err)
	}
	if len(list) > maxUDFEntries {
		return nil, protoErrorf("%d udfs listed, at most %d", len(list), maxUDFEntries)
	}
	for _, e := range list {
		if len(e.Name) > maxUDFText || len(e.Signature) > maxUDFText {
			return nil, protoErrorf("udf entry of %d+%d bytes, at most %d each", len(e.Name), len(e.Signature), maxUDFText)
		}
	}
	return list, nil
}
