package sshd

import (
	"net"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"
)

// serverCiphers are the ciphers offered, without chacha20-poly1305: SSH
// picks the first of the client's list that the server offers, OpenSSH's
// ssh lists chacha20 first, and x/crypto's chacha20 has no amd64 assembly
// (26 % of an upload's CPU), while AES runs on the CPU's AES instructions.
// OpenSSH's next choice is aes128-ctr (with hmac-sha2-256-etm, which Go
// also runs in assembly), before AES-GCM: offering only AES-GCM would get
// GCM from it, at the price of clients that have only CTR. Every OpenSSH
// since 6.2 and PuTTY since 0.68 offer AES-CTR or AES-GCM.
var serverCiphers = []string{
	gossh.CipherAES128GCM, gossh.CipherAES256GCM,
	gossh.CipherAES128CTR, gossh.CipherAES192CTR, gossh.CipherAES256CTR,
}

// quickAckBytes is how much of a connection is acknowledged at once: the
// version exchange, key exchange and authentication (a few KiB; counted in
// bytes, as x/crypto reads the client's version line a byte at a time). Linux's delayed
// ACK holds a client's small segment up to 40 ms, and a client with Nagle
// on (OpenSSH's ssh until its session starts) waits for that ACK before
// sending its next one; sshd answers sooner because it writes less first.
const quickAckBytes = 16 << 10

// quickAckListener hands out connections that ask the kernel for an
// immediate ACK before and after each of their first reads. TCP_QUICKACK is
// not sticky: the server's own write (its KEXINIT while the client's is in
// flight) puts the socket back in delayed-ACK ("pingpong") mode, so a
// segment that arrives during a blocked read is ACKed only by the 40 ms
// timer. Setting it after the read sends that pending ACK at once.
type quickAckListener struct{ net.Listener }

func (l quickAckListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	tc.SetNoDelay(true)
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return &quickAckConn{TCPConn: tc, raw: rc}, nil
}

// quickAckConn is read by one goroutine at a time (x/crypto's reader).
type quickAckConn struct {
	*net.TCPConn
	raw  interface{ Control(func(fd uintptr)) error }
	read int // bytes read so far, up to quickAckBytes
}

func (c *quickAckConn) Read(p []byte) (int, error) {
	if c.read >= quickAckBytes {
		return c.TCPConn.Read(p)
	}
	c.quickAck()
	n, err := c.TCPConn.Read(p)
	if n > 0 {
		c.read += n
		c.quickAck()
	}
	return n, err
}

func (c *quickAckConn) quickAck() {
	c.raw.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
	})
}
