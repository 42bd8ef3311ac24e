package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/replhost/replhost/internal/cpupin"
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
	ev, _, err := w.request(context.Background(), msgUDFList, nil, msgUDFEntries, 0)
	if err != nil {
		return nil, err
	}
	return ev.entries, nil
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
	// Its records run in parallel: on every CPU, found when it starts.
	release := cpupin.Hold()
	defer release()
	id, err := w.send(msgUDFCall, []byte(name), msgUDFDone, -1)
	if err != nil {
		return 0, err
	}
	feed := &udfFeed{w: w, id: id, stop: make(chan struct{})}
	go feed.run(in)
	ev, canceled, err := w.await(ctx, id)
	readErr := feed.halt()
	if err != nil {
		return 0, err
	}
	res := ev.res
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
	id   uint32        // of the call
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
	if f.stopped {
		return false
	}
	if typ == msgUDFData {
		f.w.dec.sentUDFData()
	}
	return f.w.fw.send(typ, f.id, p) == nil
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
	id     uint32        // of the call
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
			u.fw.send(msgUDFAck, u.id, nil)
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
	id  uint32
}

func (s frameStream) Write(p []byte) (int, error) {
	if err := s.fw.sendChunks(s.typ, s.id, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// handleUDF serves the udf requests in the worker.
func (ws *workerSide) handleUDF(f frame) {
	_, reg, _ := ws.session()
	ws.mu.Lock()
	in := ws.udfIn
	ws.mu.Unlock()
	switch f.typ {
	case msgUDFList:
		list := []udf.Entry{}
		if reg != nil {
			list = udfListReply(reg.List())
		}
		ws.fw.send(msgUDFEntries, f.id, mustJSON(list))
	case msgUDFCall:
		ws.startUDF(reg, f.id, string(f.payload))
	case msgUDFData, msgUDFEnd:
		if in == nil || in.id != f.id {
			return // late input of a call that ended
		}
		p := f.payload
		if f.typ == msgUDFEnd {
			p = nil
		}
		select {
		case in.frames <- p:
		default: // more than the window: the host broke the protocol
		}
	}
}

// udfListReply keeps the entries the host accepts: names and signatures
// within maxUDFText, at most maxUDFEntries, the encoding within a frame.
func udfListReply(list []udf.Entry) []udf.Entry {
	out := make([]udf.Entry, 0, min(len(list), maxUDFEntries))
	size := 2
	for _, e := range list {
		if len(e.Name) > maxUDFText || len(e.Signature) > maxUDFText {
			continue
		}
		size += len(mustJSON(e)) + 1
		if len(out) == maxUDFEntries || size > maxFrame {
			break
		}
		out = append(out, e)
	}
	return out
}

func (ws *workerSide) startUDF(reg *udf.Registry, id uint32, name string) {
	fail := func(msg string) {
		ws.fw.send(msgUDFDone, id, mustJSON(resultMsg{Kind: resError, Msg: cutText(msg, maxResultText)}))
	}
	if reg == nil {
		fail("worker has no session")
		return
	}
	f, ok := reg.Lookup(name)
	if !ok {
		fail(fmt.Sprintf("udf: no function %q registered in this session (:udfs lists them)", cutText(name, 256)))
		return
	}
	useAllProcs() // records run in parallel (worker_procs.go)
	in := &udfInput{fw: ws.fw, id: id, frames: make(chan []byte, udfWindow+1), stop: make(chan struct{})}
	ctx, end := ws.begin(id)
	ws.mu.Lock()
	ws.udfIn = in
	ws.mu.Unlock()
	go func() {
		st, err := udf.Run(ctx, f, in, frameStream{ws.fw, msgUDFOut, id}, frameStream{ws.fw, msgUDFErr, id}, 0)
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
			res.Kind, res.Msg = resError, cutText(err.Error(), maxResultText)
		}
		ws.fw.send(msgUDFDone, id, mustJSON(res))
	}()
}
