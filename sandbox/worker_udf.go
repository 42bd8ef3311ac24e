package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/replhost/replhost/udf"
)

// Both sides of a streaming udf call. The host sends msgUDFCall with the
// name, then the input as msgUDFData frames (split anywhere; the worker
// splits records at newlines) and msgUDFEnd. At most udfWindow data frames
// are unacknowledged: the worker acks each one its udf.Run has taken, so
// neither side buffers more than a window whatever the input size, and the
// worker's reading goroutine never blocks (an interrupt still gets through).
// Result and error lines stream back as msgUDFOut and msgUDFErr, in input
// order; msgUDFDone ends the call with the counts.

// UDFs lists the functions the session registered with udf.Register.
func (w *Worker) UDFs() ([]udf.Entry, error) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return nil, err
	}
	if err := w.fw.send(msgUDFList, nil); err != nil {
		return nil, w.crashError()
	}
	r, _, err := w.await(context.Background())
	if err != nil {
		return nil, err
	}
	var list []udf.Entry
	if r.typ != msgUDFEntries {
		return nil, fmt.Errorf("sandbox: worker replied %q to a udf list", r.typ)
	}
	if err := json.Unmarshal(r.payload, &list); err != nil {
		return nil, fmt.Errorf("sandbox: worker reply: %w", err)
	}
	return list, nil
}

// CallUDF streams the records of in, one per line, through the session's
// UDF name and writes one line per record to out, in input order, and one
// line "record N: reason" to errOut per record that failed (see udf.Run).
// It returns the number of failed records and nil at the end of the input;
// ctx.Err() when interrupted; a *CrashError when the worker died; or the
// error that stopped the call (no such function, reading in).
func (w *Worker) CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (failed int, err error) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return 0, err
	}
	for len(w.udfCredits) < udfWindow {
		w.udfCredits <- struct{}{}
	}
	w.mu.Lock()
	w.udfOut, w.udfErr = orDiscard(out), orDiscard(errOut)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.udfOut, w.udfErr = nil, nil
		w.mu.Unlock()
	}()
	w.dropOutput.Store(false)
	if err := w.fw.send(msgUDFCall, []byte(name)); err != nil {
		return 0, w.crashError()
	}
	feed := &udfFeed{w: w, stop: make(chan struct{})}
	go feed.run(in)
	r, canceled, err := w.await(ctx)
	readErr := feed.halt()
	if err != nil {
		return 0, err
	}
	res, err := decodeResult(r, msgUDFDone)
	if err != nil {
		return 0, err
	}
	switch res.Kind {
	case resOK:
		if readErr != nil {
			return res.Failed, fmt.Errorf("udf: read input: %w", readErr)
		}
		return res.Failed, nil
	case resCanceled:
		if canceled {
			return res.Failed, ctx.Err()
		}
		return res.Failed, context.Canceled
	default:
		return res.Failed, errors.New(res.Msg)
	}
}

// udfFeed sends the input of a udf call, a window at a time.
type udfFeed struct {
	w    *Worker
	stop chan struct{} // closed by halt

	mu      sync.Mutex // held while a frame is sent; guards the fields below
	stopped bool       // no frame of this call may be sent any more
	readErr error
}

func (f *udfFeed) run(in io.Reader) {
	buf := make([]byte, chunkBytes)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			select {
			case <-f.w.udfCredits:
			case <-f.stop:
				return
			}
			if !f.send(msgUDFData, buf[:n]) {
				return
			}
		}
		if err != nil {
			f.mu.Lock()
			if err != io.EOF {
				f.readErr = err
			}
			f.mu.Unlock()
			f.send(msgUDFEnd, nil)
			return
		}
	}
}

func (f *udfFeed) send(typ byte, p []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.stopped && f.w.fw.send(typ, p) == nil
}

// halt stops the feed: once it returns no frame of this call is sent, so
// the next call's frames cannot mix with this one's. A Read of in that
// blocks keeps the feed's goroutine until it returns.
func (f *udfFeed) halt() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	close(f.stop)
	return f.readErr
}

// udfInput is the input of a udf call in the worker: the frames the host
// sent, read by udf.Run, each acked when taken.
type udfInput struct {
	fw     *frameWriter
	frames chan []byte   // data frames; nil is the end of the input
	stop   chan struct{} // closed when the call ended
	cur    []byte
	eof    bool
}

func (u *udfInput) Read(p []byte) (int, error) {
	for len(u.cur) == 0 {
		if u.eof {
			return 0, io.EOF
		}
		select {
		case f := <-u.frames:
			if f == nil {
				u.eof = true
				continue
			}
			u.cur = f
			u.fw.send(msgUDFAck, nil)
		case <-u.stop:
			return 0, io.EOF
		}
	}
	n := copy(p, u.cur)
	u.cur = u.cur[n:]
	return n, nil
}

// frameStream writes udf output as frames of one type.
type frameStream struct {
	fw  *frameWriter
	typ byte
}

func (s frameStream) Write(p []byte) (int, error) {
	if err := s.fw.sendChunks(s.typ, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// handleUDF serves the udf requests in the worker.
func (ws *workerSide) handleUDF(typ byte, p []byte) {
	_, reg, _ := ws.session()
	ws.mu.Lock()
	in := ws.udfIn
	ws.mu.Unlock()
	switch typ {
	case msgUDFList:
		list := []udf.Entry{}
		if reg != nil {
			list = reg.List()
		}
		ws.fw.send(msgUDFEntries, mustJSON(list))
	case msgUDFCall:
		ws.startUDF(reg, string(p))
	case msgUDFData, msgUDFEnd:
		if in == nil {
			return // late input of a call that ended
		}
		if typ == msgUDFEnd {
			p = nil
		}
		select {
		case in.frames <- p:
		default: // more than the window: the host broke the protocol
		}
	}
}

func (ws *workerSide) startUDF(reg *udf.Registry, name string) {
	fail := func(msg string) { ws.fw.send(msgUDFDone, mustJSON(resultMsg{Kind: resError, Msg: msg})) }
	if reg == nil {
		fail("worker has no session")
		return
	}
	f, ok := reg.Lookup(name)
	if !ok {
		fail(fmt.Sprintf("udf: no function %q registered in this session (:udfs lists them)", name))
		return
	}
	in := &udfInput{fw: ws.fw, frames: make(chan []byte, udfWindow+1), stop: make(chan struct{})}
	ctx, end := ws.begin()
	ws.mu.Lock()
	ws.udfIn = in
	ws.mu.Unlock()
	go func() {
		st, err := udf.Run(ctx, f, in, frameStream{ws.fw, msgUDFOut}, frameStream{ws.fw, msgUDFErr}, 0)
		ws.mu.Lock()
		ws.udfIn = nil
		ws.mu.Unlock()
		close(in.stop)
		canceled := ctx.Err() != nil
		end()
		res := resultMsg{Kind: resOK, Records: st.Records, Failed: st.Failed}
		switch {
		case err != nil && canceled:
			res.Kind = resCanceled
		case err != nil:
			res.Kind, res.Msg = resError, err.Error()
		}
		ws.fw.send(msgUDFDone, mustJSON(res))
	}()
}
