package sftpd

import (
	"bufio"
	"io"
	"sync"
)

// readAhead is how much of the client's data one read of the channel
// takes at once. x/crypto/ssh sends a window adjust (one packet, one write
// to the socket) on nearly every read of a channel once a quarter of the
// window is used, and pkg/sftp reads each packet in two reads (length,
// body): a 256 MiB upload made 16,000 window adjusts, 14 % of the host's
// CPU on the path that reads the requests. Reading in big chunks makes it
// one adjust per chunk; the extra copy costs less than one write to the
// socket.
const readAhead = 256 << 10

// maxQueued bounds the responses waiting for the channel; a response
// past it waits until the queue has gone out.
const maxQueued = 256 << 10

// channel is the sftp server's connection: ch, read through a buffer of
// readAhead bytes, written from behind, and ended with Exit(0) if ch has
// it.
//
// Writes are queued and go out from a goroutine of the channel's own, all
// that queued while the last went out in one write: pkg/sftp writes each
// response on its own (the status of each 32 KiB write of an upload, the
// header and the data of each read apart), and on ssh each write to a
// channel is a packet and a write to the socket.
type channel struct {
	r  *bufio.Reader
	ch io.ReadWriteCloser

	mu      sync.Mutex
	cond    sync.Cond // on mu: queued grew or went out, closing was set, or err
	queued  []byte    // responses not yet written to ch
	spare   []byte    // the buffer being written, for reuse
	err     error     // of the last write to ch; every later Write fails with it
	closing bool      // Close has begun: write what is queued, then end
	flushed chan struct{}
	once    sync.Once
	closed  error
}

func newChannel(ch io.ReadWriteCloser) *channel {
	c := &channel{r: bufio.NewReaderSize(ch, readAhead), ch: ch, flushed: make(chan struct{})}
	c.cond.L = &c.mu
	go c.flush()
	return c
}

// Read is called by the request server's one reading goroutine only.
func (c *channel) Read(p []byte) (int, error) { return c.r.Read(p) }

// Write queues p. An error of an earlier write to ch fails it.
func (c *channel) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && !c.closing && len(c.queued) >= maxQueued {
		c.cond.Wait()
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.closing {
		return 0, io.ErrClosedPipe
	}
	c.queued = append(c.queued, p...)
	c.cond.Broadcast()
	return len(p), nil
}

// flush writes what is queued to ch until Close, or until a write fails.
func (c *channel) flush() {
	defer close(c.flushed)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for len(c.queued) == 0 && !c.closing {
			c.cond.Wait()
		}
		if len(c.queued) == 0 {
			return // closing, and all written
		}
		out := c.queued
		c.queued = c.spare[:0]
		c.mu.Unlock()
		_, err := c.ch.Write(out)
		c.mu.Lock()
		c.spare = out
		c.cond.Broadcast()
		if err != nil {
			c.err, c.queued = err, nil
			return
		}
	}
}

// Close writes what is queued, then ends ch: with Exit(0) if ch has it (an
// ssh session: the exit status goes first, then the channel closes), else
// with Close. A channel closed without an exit status makes OpenSSH's ssh
// exit 255, which scp reports as a failed copy after a good upload. Only
// the first call does this; later ones return its result.
func (c *channel) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.cond.Broadcast()
		c.mu.Unlock()
		<-c.flushed
		if x, ok := c.ch.(interface{ Exit(int) error }); ok {
			c.closed = x.Exit(0)
		} else {
			c.closed = c.ch.Close()
		}
	})
	return c.closed
}
