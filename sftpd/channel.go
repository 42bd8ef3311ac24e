package sftpd

import (
	"bufio"
	"encoding/binary"
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
// it. It also offers and answers limits@openssh.com (extlimits.go).
//
// Writes are queued and go out from a goroutine of the channel's own, all
// that queued while the last went out in one write: pkg/sftp writes each
// response on its own (the status of each write of an upload, the header
// and the data of each read apart), and on ssh each write to a channel is
// a packet and a write to the socket.
type channel struct {
	r       *bufio.Reader
	ch      io.ReadWriteCloser
	handles int   // the open handles a connection may hold, for the limits reply
	left    int64 // bytes of the client's current packet not yet read; 0: at a packet's start

	mu      sync.Mutex
	cond    sync.Cond // on mu: queued or replies changed, closing was set, or err
	queued  []byte    // responses not yet written to ch
	spare   []byte    // the buffer being written, for reuse
	err     error     // of the last write to ch; every later Write fails with it
	closing bool      // Close has begun: write what is queued, then end
	flushed chan struct{}
	once    sync.Once
	closed  error

	// The framing of what the request server writes, so that a reply of
	// the channel's own goes in between two of its packets, never inside
	// one (it writes a packet in two writes). Guarded by mu.
	versionSeen bool    // the first packet (the version) has been written
	outLeft     int64   // bytes of the current packet still to come
	lenHave     int     // bytes of the next packet's length read into lenBuf
	lenBuf      [4]byte // its length, as it arrives
	replies     []byte  // the channel's own replies, waiting for a packet's end
}

func newChannel(ch io.ReadWriteCloser, handles int) *channel {
	c := &channel{r: bufio.NewReaderSize(ch, readAhead), ch: ch, handles: handles, flushed: make(chan struct{})}
	c.cond.L = &c.mu
	go c.flush()
	return c
}

// Read is called by the request server's one reading goroutine only. It
// passes the client's packets through, but for a limits@openssh.com
// request, which it answers.
func (c *channel) Read(p []byte) (int, error) {
	for c.left == 0 {
		hdr, err := c.r.Peek(4)
		if err != nil {
			return c.r.Read(p) // what is left, then the error
		}
		c.left = 4 + int64(binary.BigEndian.Uint32(hdr))
		if c.left < 4+9 || c.left > 4+maxExtendedPeek {
			break
		}
		if t, err := c.r.Peek(5); err != nil || t[4] != fxpExtended {
			break
		}
		pkt, err := c.r.Peek(int(c.left))
		if err != nil {
			break
		}
		id, ok := limitsRequest(pkt)
		if !ok {
			break
		}
		c.r.Discard(len(pkt))
		c.left = 0
		if err := c.reply(limitsReply(id, c.handles)); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Write queues p, a part of the request server's output. An error of an
// earlier write to ch fails it.
func (c *channel) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if !c.versionSeen {
		c.versionSeen = true
		p = withLimitsExt(p)
	}
	if err := c.queue(p); err != nil {
		return 0, err
	}
	c.frame(p)
	if c.outLeft == 0 && c.lenHave == 0 && len(c.replies) > 0 {
		c.queued = append(c.queued, c.replies...)
		c.replies = c.replies[:0]
		c.cond.Broadcast()
	}
	return n, nil
}

// reply queues a packet of the channel's own, at once if the request
// server is between packets, else after its current one.
func (c *channel) reply(pkt []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Bounded: a client may send requests and never read the replies.
	for c.err == nil && !c.closing && len(c.replies) >= maxQueued {
		c.cond.Wait()
	}
	if c.err != nil {
		return c.err
	}
	if c.closing {
		return io.ErrClosedPipe
	}
	if c.outLeft != 0 || c.lenHave != 0 {
		c.replies = append(c.replies, pkt...)
		return nil
	}
	return c.queue(pkt)
}

// queue adds p to what goes out, waiting while maxQueued is queued.
// Callers hold mu.
func (c *channel) queue(p []byte) error {
	for c.err == nil && !c.closing && len(c.queued) >= maxQueued {
		c.cond.Wait()
	}
	if c.err != nil {
		return c.err
	}
	if c.closing {
		return io.ErrClosedPipe
	}
	c.queued = append(c.queued, p...)
	c.cond.Broadcast()
	return nil
}

// frame follows the request server's packets over p, its next bytes.
// Callers hold mu.
func (c *channel) frame(p []byte) {
	for len(p) > 0 {
		if c.outLeft == 0 {
			k := copy(c.lenBuf[c.lenHave:], p)
			c.lenHave += k
			p = p[k:]
			if c.lenHave == 4 {
				c.outLeft, c.lenHave = int64(binary.BigEndian.Uint32(c.lenBuf[:])), 0
			}
			continue
		}
		k := min(int64(len(p)), c.outLeft)
		c.outLeft -= k
		p = p[k:]
	}
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
