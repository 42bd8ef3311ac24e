package testhost

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Term is an interactive session over a PTY, read until a pattern shows.
type Term struct {
	tb   testing.TB
	conn *gossh.Client // closed by Close when the Term dialled it
	sess *gossh.Session
	in   io.WriteCloser

	mu   sync.Mutex // guards buf and eof
	buf  bytes.Buffer
	eof  bool
	more chan struct{} // signalled on new output
	done chan error    // the session's Wait
}

// Terminal opens a PTY session as user name running cmd ("" for a shell).
func (h *Host) Terminal(tb testing.TB, name, cmd string) *Term {
	tb.Helper()
	c := h.Dial(tb, name)
	t := OpenTerm(tb, c, cmd)
	t.conn = c
	return t
}

// OpenTerm opens a PTY session on an open connection.
func OpenTerm(tb testing.TB, c *gossh.Client, cmd string) *Term {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.RequestPty("xterm", 40, 120, gossh.TerminalModes{}); err != nil {
		tb.Fatal(err)
	}
	t := &Term{tb: tb, sess: s, more: make(chan struct{}, 1), done: make(chan error, 1)}
	t.in, _ = s.StdinPipe()
	out, _ := s.StdoutPipe()
	go t.pump(out)
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		tb.Fatal(err)
	}
	go func() { t.done <- s.Wait() }()
	tb.Cleanup(func() { s.Close() })
	return t
}

func (t *Term) pump(r io.Reader) {
	b := make([]byte, 32*1024)
	for {
		n, err := r.Read(b)
		t.mu.Lock()
		t.buf.Write(b[:n])
		if err != nil {
			t.eof = true
		}
		t.mu.Unlock()
		select {
		case t.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// Send types s.
func (t *Term) Send(s string) {
	t.tb.Helper()
	if _, err := io.WriteString(t.in, s); err != nil {
		t.tb.Fatalf("send %q: %v", s, err)
	}
}

// ExpectWait bounds Expect and Wait. Generous: the bound only matters when
// a test fails, and a race-built suite on a loaded 2-core machine can be
// thirty times slower than a quiet run (a 1 MiB line echoed: 0.5 s quiet,
// over 15 s under load).
const ExpectWait = 60 * time.Second

// Expect waits until the output holds a match of re and returns the match
// and what came before it, consuming both; it fails the test at timeout.
func (t *Term) Expect(re string) []string {
	t.tb.Helper()
	m, ok := t.ExpectTimeout(re, ExpectWait)
	if !ok {
		t.mu.Lock()
		got := t.buf.String()
		t.mu.Unlock()
		if len(got) > 2000 {
			got = "..." + got[len(got)-2000:]
		}
		t.tb.Fatalf("timed out waiting for %q; output so far:\n%q", re, got)
	}
	return m
}

// ExpectTimeout is Expect returning false instead of failing.
func (t *Term) ExpectTimeout(re string, d time.Duration) ([]string, bool) {
	pat := regexp.MustCompile(re)
	deadline := time.After(d)
	for {
		t.mu.Lock()
		data := t.buf.Bytes()
		if loc := pat.FindSubmatchIndex(data); loc != nil {
			var m []string
			for i := 0; i < len(loc); i += 2 {
				if loc[i] >= 0 {
					m = append(m, string(data[loc[i]:loc[i+1]]))
				} else {
					m = append(m, "")
				}
			}
			m = append(m, string(data[:loc[0]]))
			t.buf.Next(loc[1])
			t.mu.Unlock()
			return m, true
		}
		eof := t.eof
		t.mu.Unlock()
		if eof {
			return nil, false
		}
		select {
		case <-t.more:
		case <-deadline:
			return nil, false
		}
	}
}

// Wait waits for the session's end and returns its exit status.
func (t *Term) Wait() int {
	t.tb.Helper()
	select {
	case err := <-t.done:
		if ee, ok := err.(*gossh.ExitError); ok {
			return ee.ExitStatus()
		}
		if err != nil {
			return -1
		}
		return 0
	case <-time.After(ExpectWait):
		t.tb.Fatal("session did not end")
		return -1
	}
}

// Close ends the client side of the session, and its connection when the
// Term opened it.
func (t *Term) Close() {
	t.sess.Close()
	if t.conn != nil {
		t.conn.Close()
	}
}

// Clean strips terminal escape sequences and carriage returns from s, so
// tests can match the text a user sees.
func Clean(s string) string {
	s = ansi.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r", "")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z~]`)

// Interrupt sends Ctrl-C until the output says interrupted: a Ctrl-C typed
// in the instant between Enter and the cell's start goes to the line editor,
// as it would for a user, who presses it again.
func (t *Term) Interrupt() {
	t.tb.Helper()
	for i := 0; i < 50; i++ {
		t.Send("\x03")
		if _, ok := t.ExpectTimeout(`interrupted[^\r\n]*\r\n`, 200*time.Millisecond); ok {
			return
		}
	}
	t.mu.Lock()
	got := t.buf.String()
	t.mu.Unlock()
	if len(got) > 2000 {
		got = "..." + got[len(got)-2000:]
	}
	t.tb.Fatalf("Ctrl-C did not interrupt the cell; output so far:\n%q", got)
}

// Input is the terminal's raw input, for writes too large for Send.
func (t *Term) Input() io.Writer { return t.in }
