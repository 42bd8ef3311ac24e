package udf

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxLine is the longest record Run accepts, in bytes without its line
// ending. A longer record fails; the records after it go on.
const MaxLine = 16 << 20

const (
	batchRecords = 256       // records per batch: amortizes channel and scheduling costs
	batchBytes   = 256 << 10 // a batch closes early once its records reach this size
	keepBytes    = 4 << 20   // a recycled batch keeps buffers up to this size
	readBuffer   = 64 << 10
)

// A batch is the unit of work: consecutive records, read by the reader,
// run by one worker, written by the writer. Each stage hands it on over a
// channel, so only one goroutine at a time touches it.
type batch struct {
	first  int           // number of the first record, 1-based
	data   []byte        // the records back to back, without line endings
	ends   []int         // end of each record in data
	long   []bool        // the record was longer than MaxLine; its bytes were dropped
	out    bytes.Buffer  // output lines, in record order
	errs   bytes.Buffer  // error lines, in record order
	failed int           // records that failed
	done   chan struct{} // a worker puts one token when it has run the batch
}

func newBatch() *batch { return &batch{done: make(chan struct{}, 1)} }

// start returns where record i begins in data.
func (b *batch) start(i int) int {
	if i == 0 {
		return 0
	}
	return b.ends[i-1]
}

// add ends a record at the end of data.
func (b *batch) add(long bool) {
	b.ends = append(b.ends, len(b.data))
	b.long = append(b.long, long)
}

func (b *batch) full() bool { return len(b.ends) >= batchRecords || len(b.data) >= batchBytes }

// fail records that record i failed for the reason msg.
func (b *batch) fail(i int, msg string) {
	b.failed++
	if strings.ContainsAny(msg, "\r\n") {
		msg = strconv.Quote(msg) // one line per failure
	}
	fmt.Fprintf(&b.errs, "record %d: %s\n", b.first+i, msg)
}

// reset empties b for reuse, dropping buffers that grew large.
func (b *batch) reset() {
	b.data, b.ends, b.long, b.failed = b.data[:0], b.ends[:0], b.long[:0], 0
	if cap(b.data) > keepBytes {
		b.data = nil
	}
	for _, buf := range []*bytes.Buffer{&b.out, &b.errs} {
		buf.Reset()
		if buf.Cap() > keepBytes {
			*buf = bytes.Buffer{}
		}
	}
}

var errLong = fmt.Sprintf("line longer than %d bytes (%d MiB)", MaxLine, MaxLine>>20)

// read splits in into records, batches them and sends the batches on. It
// sends a partial batch before each Read of in, which may block, so that
// the first results come out while the input still trickles in. It closes
// order and tasks when the input ends or the pipeline stops.
func (p *pipeline) read(in io.Reader) {
	defer close(p.tasks)
	defer close(p.order)
	b := p.batch(1)
	partial := false // data ends with the start of an unfinished record
	long := false    // that record is already too long; its bytes are dropped
	recStart := 0
	idle := func() error {
		if partial || len(b.ends) == 0 {
			return nil
		}
		next := b.first + len(b.ends) // b is not ours once sent
		if !p.send(b) {
			return errStopped
		}
		b = p.batch(next)
		return nil
	}
	br := bufio.NewReaderSize(beforeRead{in, idle}, readBuffer)
	for {
		frag, err := br.ReadSlice('\n')
		if !partial {
			recStart = len(b.data)
		}
		if !long {
			b.data = append(b.data, frag...)
			if len(b.data)-recStart > MaxLine+2 { // \r\n aside, too long: drop its bytes
				b.data, long = b.data[:recStart], true
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			partial = true
			continue
		case err == io.EOF && !partial && len(frag) == 0:
			if len(b.ends) > 0 {
				p.send(b)
			}
			return
		case err != nil && err != io.EOF:
			if err != errStopped {
				p.readErr = err
				if len(b.ends) > 0 {
					p.send(b)
				}
			}
			return
		}
		// A record is complete: trim its line ending and check its length.
		if !long {
			end := len(b.data)
			if end > recStart && b.data[end-1] == '\n' {
				end--
			}
			if end > recStart && b.data[end-1] == '\r' {
				end--
			}
			b.data = b.data[:end]
			if end-recStart > MaxLine {
				b.data, long = b.data[:recStart], true
			}
		}
		b.add(long)
		partial, long = false, false
		if err == io.EOF {
			p.send(b)
			return
		}
		if b.full() {
			next := b.first + len(b.ends)
			if !p.send(b) {
				return
			}
			b = p.batch(next)
		}
	}
}

// beforeRead calls hook before each Read of r. bufio reads only when its
// buffer holds no complete line, which is when a Read may block.
type beforeRead struct {
	r    io.Reader
	hook func() error
}

func (h beforeRead) Read(buf []byte) (int, error) {
	if err := h.hook(); err != nil {
		return 0, err
	}
	return h.r.Read(buf)
}
