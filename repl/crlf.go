package repl

import (
	"bytes"
	"io"
	"sync"
)

// crlfWriter is the terminal side of an SSH PTY: there is no kernel line
// discipline to turn "\n" into "\r\n", so it is done here. It also
// serializes writes from the code, the prompt and the loop.
type crlfWriter struct {
	mu     sync.Mutex // guards w and lastCR
	w      io.Writer
	lastCR bool
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out bytes.Buffer
	out.Grow(len(p) + 16)
	for _, b := range p {
		if b == '\n' && !c.lastCR {
			out.WriteByte('\r')
		}
		out.WriteByte(b)
		c.lastCR = b == '\r'
	}
	if _, err := c.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
