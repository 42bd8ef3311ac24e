package udf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// Stats counts the records whose lines Run wrote, output or error lines.
type Stats struct {
	Records int // records read and run
	Failed  int // records that failed, each with a line on errOut
}

var errStopped = errors.New("udf: run stopped")

// Run streams the records of in, one per line (without its "\n" or "\r\n"),
// through f and writes one line per record to out, in input order:
//
//   - For func(string) string and func(string) (string, error) the line is
//     the argument; for any other signature it is a JSON array of the
//     arguments, decoded into the parameter types.
//   - A string result is written as is, any other as JSON (HTML not escaped).
//     A function with no value result, such as func(T) error, writes no line
//     when it succeeds: it acts on records or checks them.
//   - A record that fails (an error result, arguments that don't decode, a
//     panic, a line longer than MaxLine) writes no output line but one line
//     "record N: reason" to errOut, N counted from 1, and the rest go on.
//     A batch's error lines follow its output lines.
//
// workers goroutines run batches of records in parallel (workers < 1 means
// GOMAXPROCS). A batch closes at 256 records or 256 KiB, or earlier when
// the input pauses. The output of batches that are done is gathered into
// Writes of up to 32 KiB (one SSH packet), and written whenever Run would
// wait for the next batch, so results appear while the input still
// arrives; a bounded number of batches is in flight, so memory stays
// bounded whatever the input size. out needs no buffering.
//
// Run returns nil at the end of the input however many records failed (see
// Stats.Failed), ctx.Err() when ctx ends, or the error of reading in or of
// writing out or errOut. On an early stop it returns at once, without waiting
// for a Read of in that blocks or for calls of f in progress: those goroutines
// end when their call returns, and never write to out or errOut after Run
// returns. f must be safe for concurrent use when workers > 1.
func Run(ctx context.Context, f *Func, in io.Reader, out, errOut io.Writer, workers int) (Stats, error) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	inflight := 2*workers + 2
	p := &pipeline{
		f:     f,
		order: make(chan *batch, inflight),
		tasks: make(chan *batch, inflight),
		free:  make(chan *batch, inflight+2),
		stop:  make(chan struct{}),
	}
	go p.read(in)
	p.workers.Add(workers)
	for range workers {
		go p.work(nil, 0)
	}
	st, err := p.write(ctx, out, errOut)
	if err != nil {
		p.stopped.Store(true)
		close(p.stop)
		return st, err
	}
	p.workers.Wait()
	if p.readErr != nil {
		return st, fmt.Errorf("udf: read input: %w", p.readErr)
	}
	return st, nil
}

// A pipeline is one Run: the reader batches records and sends each batch on
// order (to the writer, keeping input order) and on tasks (to the workers);
// the writer waits for each batch in order and writes it. The capacity of
// order bounds the batches in flight, which is the backpressure.
type pipeline struct {
	f       *Func
	order   chan *batch    // batches in input order, to the writer
	tasks   chan *batch    // batches to run, to the workers
	free    chan *batch    // written batches, back to the reader for reuse
	stop    chan struct{}  // closed when the writer stops early
	stopped atomic.Bool    // stop is closed; workers check it per record
	readErr error          // set by the reader before it closes order
	workers sync.WaitGroup // running workers
}

// batch returns an empty batch whose first record is number first.
func (p *pipeline) batch(first int) *batch {
	var b *batch
	select {
	case b = <-p.free:
	default:
		b = newBatch()
	}
	b.first = first
	return b
}

// send hands b to the writer and to the workers. It reports false if the
// pipeline stopped.
func (p *pipeline) send(b *batch) bool {
	select {
	case p.order <- b:
	case <-p.stop:
		return false
	}
	select {
	case p.tasks <- b:
		return true
	case <-p.stop:
		return false
	}
}

// work runs batches from tasks. Started with batch b, it first runs b from
// record i on.
func (p *pipeline) work(b *batch, i int) {
	c := newCaller(p.f)
	finished := false
	defer func() {
		if !finished {
			// f called runtime.Goexit, which ends this goroutine whatever we
			// do: fail that record and let a new worker take over.
			b.fail(i, "the function called runtime.Goexit")
			go p.work(b, i+1)
			return
		}
		p.workers.Done()
	}()
	for {
		if b == nil {
			select {
			case b = <-p.tasks:
			case <-p.stop:
			}
			if b == nil {
				finished = true
				return
			}
			i = 0
		}
		var s string
		if p.f.lineArg {
			s = string(b.data) // one string per batch, not one per record
		}
		for ; i < len(b.ends) && !p.stopped.Load(); i++ {
			start, end := b.start(i), b.ends[i]
			var err error
			switch {
			case b.long[i]:
				b.fail(i, errLong)
				continue
			case p.f.lineArg:
				err = c.call(&b.out, nil, s[start:end])
			default:
				err = c.call(&b.out, b.data[start:end], "")
			}
			if err != nil {
				b.fail(i, err.Error())
			}
		}
		b.done <- struct{}{}
		b = nil
	}
}

// writeBytes is how much output write gathers before one Write: an SSH
// channel packet's payload, so that a fast stream of small batches goes
// out in full packets (fewer packets, syscalls and wake-ups at both ends).
const writeBytes = 32 << 10

// write writes the batches in input order until the input ends, ctx ends
// or a write fails. It gathers the output of batches that are done up to
// writeBytes and writes it whenever it would wait for the next batch, so
// results are out as soon as they are done.
func (p *pipeline) write(ctx context.Context, out, errOut io.Writer) (Stats, error) {
	var (
		st   Stats  // records whose lines were written
		held Stats  // records whose output lines wait in buf
		buf  []byte // output lines not written yet
	)
	writeOut := func() error {
		if len(buf) == 0 {
			return nil
		}
		_, err := out.Write(buf)
		buf = buf[:0]
		if err != nil {
			return fmt.Errorf("udf: write output: %w", err)
		}
		return nil
	}
	commit := func() {
		st.Records += held.Records
		st.Failed += held.Failed
		held = Stats{}
	}
	flush := func() error {
		if err := writeOut(); err != nil {
			return err
		}
		commit()
		return nil
	}
	for {
		b, err := p.next(ctx, flush)
		if err != nil {
			return st, err
		}
		if b == nil {
			return st, flush()
		}
		if len(buf)+b.out.Len() > writeBytes {
			if err := flush(); err != nil {
				return st, err
			}
		}
		held.Records += len(b.ends)
		held.Failed += b.failed
		direct := len(buf) == 0 && b.out.Len() >= writeBytes
		if direct {
			if _, err := out.Write(b.out.Bytes()); err != nil {
				return st, fmt.Errorf("udf: write output: %w", err)
			}
		} else {
			buf = append(buf, b.out.Bytes()...)
		}
		if b.errs.Len() > 0 {
			// A batch's error lines follow its output lines.
			if err := writeOut(); err != nil {
				return st, err
			}
			if _, err := errOut.Write(b.errs.Bytes()); err != nil {
				return st, fmt.Errorf("udf: write errors: %w", err)
			}
		}
		if direct || b.errs.Len() > 0 {
			commit()
		}
		b.reset()
		select {
		case p.free <- b:
		default:
		}
	}
}

// next returns the next batch in order once it has run, or nil at the end.
// Before it waits, for a batch or for a worker, it calls flush.
func (p *pipeline) next(ctx context.Context, flush func() error) (*batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // checked here too, as the channels may never block
	}
	var b *batch
	select {
	case b = <-p.order:
	default:
		if err := flush(); err != nil {
			return nil, err
		}
		select {
		case b = <-p.order:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if b == nil {
		return nil, nil // order closed: the input ended
	}
	select {
	case <-b.done:
		return b, nil
	default:
	}
	if err := flush(); err != nil {
		return nil, err
	}
	select {
	case <-b.done:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
