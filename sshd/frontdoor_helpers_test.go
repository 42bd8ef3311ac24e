package sshd_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// logBuffer collects a host's log lines; safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines are the log lines holding every one of words.
func (l *logBuffer) lines(words ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all && line != "" {
			out = append(out, line)
		}
	}
	return out
}

// dialFrom opens a TCP connection to addr from the loopback address src
// (all of 127.0.0.0/8 is loopback), so tests can be several sources.
func dialFrom(tb testing.TB, src, addr string) net.Conn {
	tb.Helper()
	c, err := tryDialFrom(tb, src, addr)
	if err != nil {
		tb.Fatalf("dial from %s: %v", src, err)
	}
	return c
}

// tryDialFrom is dialFrom for goroutines: it returns the error.
func tryDialFrom(tb testing.TB, src, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err == nil {
		tb.Cleanup(func() { c.Close() })
	}
	return c, err
}

// admitted reports whether the host took c into its handshake: it then
// sends its version line at once; a refused connection is closed at once.
// Either comes without the client sending anything.
func admitted(tb testing.TB, c net.Conn) bool {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a hang guard only
	line, err := bufio.NewReader(c).ReadString('\n')
	if err == nil && strings.HasPrefix(line, "SSH-2.0-") {
		return true
	}
	if err != nil && (err == io.EOF || isReset(err)) {
		return false
	}
	tb.Fatalf("neither a version line nor a close: %q, %v", line, err)
	return false
}

func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

// sshFrom logs in as user from the loopback address src; safe in
// goroutines.
func sshFrom(tb testing.TB, h *testhost.Host, src string, cfg *gossh.ClientConfig) (*gossh.Client, error) {
	nc, err := tryDialFrom(tb, src, h.Addr)
	if err != nil {
		return nil, err
	}
	c, chans, reqs, err := gossh.NewClientConn(nc, h.Addr, cfg)
	if err != nil {
		return nil, err
	}
	client := gossh.NewClient(c, chans, reqs)
	tb.Cleanup(func() { client.Close() })
	return client, nil
}

// procStatus is a field of /proc/self/status in bytes (VmRSS, VmHWM).
func procStatus(tb testing.TB, field string) int64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// resetPeakRSS starts a new VmHWM measurement of this process (the host
// runs in it), and returns the RSS now.
func resetPeakRSS(tb testing.TB) int64 {
	tb.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Skipf("cannot reset the peak RSS: %v", err)
	}
	return procStatus(tb, "VmRSS")
}

// pattern is an endless stream of b, for inputs larger than a test should
// hold.
type pattern struct{ b byte }

func (p pattern) Read(buf []byte) (int, error) {
	for i := range buf {
		buf[i] = p.b
	}
	return len(buf), nil
}
