package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// countConn counts the bytes a client reads from the server: what the
// server sent on the wire, SSH framing and encryption included.
type countConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// client is one SSH connection of the bench's Go client.
type client struct {
	*gossh.Client
	raw *countConn
}

// dial connects and authenticates to t, bounded by timeout.
func (t *target) dial(timeout time.Duration) (*client, error) {
	nc, err := net.DialTimeout("tcp", t.addr, timeout)
	if err != nil {
		return nil, err
	}
	cc := &countConn{Conn: nc}
	nc.SetDeadline(time.Now().Add(timeout))
	conf := &gossh.ClientConfig{
		User:            t.user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(t.key)},
		HostKeyCallback: gossh.FixedHostKey(t.hostKey),
		Timeout:         timeout,
	}
	c, chans, reqs, err := gossh.NewClientConn(cc, t.addr, conf)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s: ssh handshake: %w", t.name, err)
	}
	nc.SetDeadline(time.Time{})
	return &client{Client: gossh.NewClient(c, chans, reqs), raw: cc}, nil
}

// term is an interactive PTY session read synchronously: each wait reads
// until its pattern shows, under a deadline on the connection, so that no
// loop of the bench can hang.
type term struct {
	t    *target
	c    *client
	s    *gossh.Session
	in   io.WriteCloser
	out  io.Reader
	buf  []byte // output not yet consumed by a wait
	got  int64  // channel data bytes read in all
	rbuf []byte
}

// openTerm logs in, opens a PTY shell and waits for the first prompt.
func (t *target) openTerm(timeout time.Duration) (*term, error) {
	c, err := t.dial(timeout)
	if err != nil {
		return nil, err
	}
	tm, err := c.term(t, "", timeout)
	if err != nil {
		c.Close()
		return nil, err
	}
	return tm, nil
}

// term opens a PTY session running cmd ("" for a shell) and waits for
// the first prompt.
func (c *client) term(t *target, cmd string, timeout time.Duration) (*term, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	if err := s.RequestPty("xterm", 40, 200, gossh.TerminalModes{}); err != nil {
		return nil, err
	}
	tm := &term{t: t, c: c, s: s, rbuf: make([]byte, 32<<10)}
	if tm.in, err = s.StdinPipe(); err != nil {
		return nil, err
	}
	if tm.out, err = s.StdoutPipe(); err != nil {
		return nil, err
	}
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		return nil, err
	}
	if err := tm.waitPrompt(timeout); err != nil {
		return nil, fmt.Errorf("%s: first prompt: %w", t.name, err)
	}
	return tm, nil
}

// errTimeout is a wait that ran past its bound.
var errTimeout = errors.New("timed out")

// waitFor reads until pat shows in the output, and drops the output up to
// and including it.
func (tm *term) waitFor(pat []byte, timeout time.Duration) error {
	_, err := tm.waitCapture(pat, nil, timeout)
	return err
}

// waitCapture is waitFor that appends the output before pat to into.
func (tm *term) waitCapture(pat, into []byte, timeout time.Duration) ([]byte, error) {
	tm.c.raw.SetReadDeadline(time.Now().Add(timeout))
	defer tm.c.raw.SetReadDeadline(time.Time{})
	for {
		if i := bytes.Index(tm.buf, pat); i >= 0 {
			if into != nil {
				into = append(into, tm.buf[:i]...)
			}
			tm.buf = tm.buf[:copy(tm.buf, tm.buf[i+len(pat):])]
			return into, nil
		}
		n, err := tm.out.Read(tm.rbuf)
		tm.got += int64(n)
		tm.buf = append(tm.buf, tm.rbuf[:n]...)
		if len(tm.buf) > 1<<20 {
			tm.buf = tm.buf[len(tm.buf)-64<<10:]
		}
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return into, errTimeout
			}
			if bytes.Contains(tm.buf, pat) {
				continue
			}
			return into, fmt.Errorf("waiting for %q: %w (output %q)", pat, err, tail(tm.buf))
		}
	}
}

func (tm *term) waitPrompt(timeout time.Duration) error {
	return tm.waitFor([]byte(tm.t.prompt), timeout)
}

// eval types line (as one write, the way a paste or a fast typist's line
// arrives) and waits for want as the printed value and the next prompt.
func (tm *term) eval(line, want string, timeout time.Duration) error {
	if _, err := io.WriteString(tm.in, line+"\r"); err != nil {
		return err
	}
	if err := tm.waitFor([]byte(fmt.Sprintf(tm.t.result, want)), timeout); err != nil {
		return fmt.Errorf("%s: %q: want %s: %w", tm.t.name, line, want, err)
	}
	return tm.waitPrompt(timeout)
}

// run types line and waits for the next prompt only (a statement).
func (tm *term) run(line string, timeout time.Duration) error {
	if _, err := io.WriteString(tm.in, line+"\r"); err != nil {
		return err
	}
	// The echo of the line comes first; the prompt follows its newline.
	if err := tm.waitFor([]byte("\n"), timeout); err != nil {
		return err
	}
	return tm.waitPrompt(timeout)
}

// capture types line and returns what was printed between the end of its
// echo (the newline, kept) and the next prompt.
func (tm *term) capture(line string, timeout time.Duration) ([]byte, error) {
	if _, err := io.WriteString(tm.in, line+"\r"); err != nil {
		return nil, err
	}
	if err := tm.waitFor([]byte("\n"), timeout); err != nil {
		return nil, err
	}
	return tm.waitCapture([]byte(tm.t.prompt), []byte("\n"), timeout)
}

// close ends the session: replhost's with :quit (the session is removed,
// as an anchor's yaegi process ends with its connection), then the
// connection.
func (tm *term) close() {
	if tm.t.quit != "" {
		io.WriteString(tm.in, tm.t.quit+"\r")
		done := make(chan struct{})
		go func() { tm.s.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	tm.s.Close()
	tm.c.Close()
}

func tail(b []byte) []byte {
	if len(b) > 200 {
		return b[len(b)-200:]
	}
	return b
}

// exec runs cmd on c with stdin ("" a shell without a PTY: a script) and
// returns its stdout; an exit status other than 0 is an error with its
// stderr.
func (c *client) exec(cmd string, stdin io.Reader, timeout time.Duration) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdin, s.Stdout, s.Stderr = stdin, &out, &errOut
	done := make(chan error, 1)
	go func() {
		if cmd == "" {
			if err := s.Shell(); err != nil {
				done <- err
				return
			}
			done <- s.Wait()
			return
		}
		done <- s.Run(cmd)
	}()
	select {
	case err = <-done:
	case <-time.After(timeout):
		c.Close()
		return "", fmt.Errorf("%q: %w", cmd, errTimeout)
	}
	if err != nil {
		return out.String(), fmt.Errorf("%q: %w: %s", cmd, err, bytes.TrimSpace(errOut.Bytes()))
	}
	return out.String(), nil
}
