package sftpd

import (
	"bufio"
	"io"
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

// channel is the sftp server's connection: ch, read through a buffer of
// readAhead bytes, and ended with Exit(0) if ch has it.
type channel struct {
	r  *bufio.Reader
	ch io.ReadWriteCloser
}

func newChannel(ch io.ReadWriteCloser) *channel {
	return &channel{r: bufio.NewReaderSize(ch, readAhead), ch: ch}
}

// Read is called by the request server's one reading goroutine only.
func (c *channel) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *channel) Write(p []byte) (int, error) { return c.ch.Write(p) }

// Close ends ch when the request server closes it: with Exit(0) if ch has
// it (an ssh session: the exit status goes first, then the channel closes),
// else with Close. A channel closed without an exit status makes OpenSSH's
// ssh exit 255, which scp reports as a failed copy after a good upload.
func (c *channel) Close() error {
	if x, ok := c.ch.(interface{ Exit(int) error }); ok {
		return x.Exit(0)
	}
	return c.ch.Close()
}
