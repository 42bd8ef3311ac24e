package sshd_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

func windowChange(cols, rows uint32) []byte {
	return gossh.Marshal(struct{ Cols, Rows, Wpx, Hpx uint32 }{cols, rows, 0, 0})
}

// Agent, X11 and every kind of forwarding are refused; every request that
// wants a reply gets one, and the session still works after them.
func TestForwardingRefusedAndEveryRequestAnswered(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	c := h.Dial(t, "alice")
	for _, typ := range []string{"keepalive@openssh.com", "tcpip-forward", "streamlocal-forward@openssh.com", "no-more-sessions@openssh.com"} {
		ok, _, err := c.SendRequest(typ, true, gossh.Marshal(struct {
			Addr string
			Port uint32
		}{"127.0.0.1", 0}))
		if err != nil || ok {
			t.Errorf("global %s: ok=%v err=%v; want a refusal", typ, ok, err)
		}
	}
	for _, typ := range []string{"direct-tcpip", "direct-streamlocal@openssh.com", "x11", "auth-agent@openssh.com"} {
		if ch, _, err := c.OpenChannel(typ, nil); err == nil {
			ch.Close()
			t.Errorf("channel %s opened; want rejected", typ)
		}
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		typ     string
		payload []byte
	}{
		{"auth-agent-req@openssh.com", nil},
		{"x11-req", gossh.Marshal(struct {
			Single        bool
			Proto, Cookie string
			Screen        uint32
		}{false, "MIT-MAGIC-COOKIE-1", "00", 0})},
		{"signal", gossh.Marshal(struct{ Signal string }{"INT"})},
		{"break", gossh.Marshal(struct{ Ms uint32 }{10})},
		{"no-such-request", nil},
	} {
		ok, err := s.SendRequest(tt.typ, true, tt.payload)
		if err != nil || ok {
			t.Errorf("%s: ok=%v err=%v; want an answered refusal", tt.typ, ok, err)
		}
	}
	var out strings.Builder
	s.Stdout = &out
	if err := s.Run("eval 1"); err != nil || out.String() != "1\n" {
		t.Errorf("session after the refusals: %q, %v", out.String(), err)
	}
}

// Pty sizes past the bounds are refused; window changes before the shell
// are answered and do not hang it.
func TestPtyBoundsAndWindowChangeBeforeShell(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	c := h.Dial(t, "alice")
	for _, tt := range []struct {
		name       string
		term       string
		cols, rows int
	}{
		{"huge-window", "xterm", 1 << 20, 1 << 20},
		{"long-term-name", strings.Repeat("x", 4096), 80, 24},
	} {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestPty(tt.term, tt.rows, tt.cols, gossh.TerminalModes{}); err == nil {
			t.Errorf("%s: pty accepted", tt.name)
		}
		s.Close()
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if ok, err := s.SendRequest("window-change", true, windowChange(uint32(81+i), 24)); err != nil || !ok {
			t.Fatalf("window-change %d before the shell: ok=%v err=%v", i, ok, err)
		}
	}
	if ok, _ := s.SendRequest("window-change", true, windowChange(1<<20, 24)); ok {
		t.Error("a window of a million columns accepted")
	}
	s.Close()
	term := testhost.OpenTerm(t, c, "")
	term.Expect("go> ")
	term.Send(":quit\r")
	term.Wait()
}

// A channel that gets window changes and never a shell leaves nothing
// behind: 100 such connections return the goroutines to their baseline.
func TestWindowChangeBeforeShellDoesNotLeak(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	once := func() {
		c, err := gossh.Dial("tcp", h.Addr, h.ClientConfig("alice"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if ok, err := s.SendRequest("window-change", true, windowChange(uint32(90+i), 30)); err != nil || !ok {
				t.Fatalf("window-change: %v %v", ok, err)
			}
		}
	}
	once()
	settle()
	base := runtime.NumGoroutine()
	for range 100 {
		once()
	}
	var now int
	for i := 0; i < 100; i++ { // bounded: up to 5 s for connections to wind down
		settle()
		if now = runtime.NumGoroutine(); now <= base+2 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines: %d before, %d after 100 channels with window changes and no shell\n%s", base, now, buf[:runtime.Stack(buf, true)])
}
