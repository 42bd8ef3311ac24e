// Package tmuxterm drives a real terminal for tests: tmux running
// OpenSSH's ssh -t, with the screen read back by capture-pane. What the
// tests assert is what a user sees (wide characters, wrapping, reflow on a
// resize), not the bytes sent.
package tmuxterm

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Screen is one tmux session on its own server socket.
type Screen struct {
	tb   testing.TB
	sock string
}

// Available skips the test when tmux or ssh is missing.
func Available(tb testing.TB) {
	tb.Helper()
	for _, p := range []string{"tmux", "ssh"} {
		if _, err := exec.LookPath(p); err != nil {
			tb.Skipf("%s not installed: %v", p, err)
		}
	}
}

// SSH starts ssh -t to addr as user with the key file, in a cols×rows
// terminal; the tmux server ends at the test's end.
func SSH(tb testing.TB, addr, user, keyFile string, cols, rows int) *Screen {
	tb.Helper()
	Available(tb)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		tb.Fatal(err)
	}
	s := &Screen{tb: tb, sock: filepath.Join(tb.TempDir(), "tmux")}
	cmd := fmt.Sprintf("ssh -F /dev/null -t -p %s -i %s -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR %s@%s",
		port, keyFile, user, host)
	s.tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-s", "t", cmd)
	s.tmux("set-option", "-t", "t", "remain-on-exit", "on")
	tb.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *Screen) tmux(args ...string) string {
	s.tb.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.tb.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Type sends text as typed (literally).
func (s *Screen) Type(text string) {
	s.tb.Helper()
	s.tmux("send-keys", "-t", "t", "-l", text)
}

// Keys sends tmux key names (Enter, Tab, Home, End, DC, Left, ...), which
// tmux encodes as a terminal of its kind does (Home is ESC[1~).
func (s *Screen) Keys(keys ...string) {
	s.tb.Helper()
	s.tmux(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

// Raw sends bytes unchanged (an escape sequence of another terminal).
func (s *Screen) Raw(b string) {
	s.tb.Helper()
	args := []string{"send-keys", "-t", "t", "-H"}
	for i := 0; i < len(b); i++ {
		args = append(args, fmt.Sprintf("%02x", b[i]))
	}
	s.tmux(args...)
}

// Text is the screen now, one string per row, trailing blanks cut.
func (s *Screen) Text() []string {
	s.tb.Helper()
	out := s.tmux("capture-pane", "-p", "-t", "t")
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// Cursor is the cursor's column and row.
func (s *Screen) Cursor() (x, y int) {
	s.tb.Helper()
	out := strings.Fields(s.tmux("display-message", "-p", "-t", "t", "#{cursor_x} #{cursor_y}"))
	if len(out) != 2 {
		s.tb.Fatalf("cursor: %q", out)
	}
	x, _ = strconv.Atoi(out[0])
	y, _ = strconv.Atoi(out[1])
	return x, y
}

// Resize changes the terminal's size (ssh passes it on as window-change).
func (s *Screen) Resize(cols, rows int) {
	s.tb.Helper()
	s.tmux("resize-window", "-t", "t", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
}

// WaitFor polls the screen until ok holds for it and returns it; it fails
// the test after 15 s with the screen.
func (s *Screen) WaitFor(what string, ok func(rows []string) bool) []string {
	s.tb.Helper()
	deadline := time.Now().Add(60 * time.Second) // only reached when a test fails; generous for a loaded machine
	for {
		rows := s.Text()
		if ok(rows) {
			return rows
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("screen never showed %s; screen:\n%s", what, strings.Join(rows, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitLast waits until the last non-blank row is want.
func (s *Screen) WaitLast(want string) []string {
	s.tb.Helper()
	return s.WaitFor(fmt.Sprintf("last row %q", want), func(rows []string) bool {
		return len(rows) > 0 && rows[len(rows)-1] == want
	})
}

// WaitTail waits until the screen's last rows are want.
func (s *Screen) WaitTail(want ...string) []string {
	s.tb.Helper()
	return s.WaitFor(fmt.Sprintf("last rows %q", want), func(rows []string) bool {
		if len(rows) < len(want) {
			return false
		}
		tail := rows[len(rows)-len(want):]
		for i := range want {
			if tail[i] != want[i] {
				return false
			}
		}
		return true
	})
}

// WaitCursor waits until the cursor is at column x; it fails the test
// after 5 s with where it is.
func (s *Screen) WaitCursor(x int) {
	s.tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		cx, cy := s.Cursor()
		if cx == x {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Errorf("cursor at column %d (row %d); want column %d; screen:\n%s", cx, cy, x, strings.Join(s.Text(), "\n"))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
