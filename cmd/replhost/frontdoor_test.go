package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func (h *hostProc) eval(tb testing.TB, code string) string {
	tb.Helper()
	out, err := exec.Command("ssh", append(h.sshArgs(tb), "eval", code)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("ssh eval %s: %v\n%s\nhost log:\n%s", code, err, out, h.Log())
	}
	return string(out)
}

// A second host on a root in use exits non-zero naming the holder, and the
// first goes on serving.
func TestSecondHostOnTheSameRootIsRefused(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root, "--isolation", "inproc")
	second := exec.Command(replhostBin, "serve", "--listen", "127.0.0.1:0", "--root", root, "--isolation", "inproc")
	out, err := second.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() == 0 {
		t.Fatalf("second host: %v\n%s", err, out)
	}
	want := fmt.Sprintf("root %s is in use by pid %d", root, h.cmd.Process.Pid)
	if !strings.Contains(string(out), want) {
		t.Errorf("second host said %q; want %q", out, want)
	}
	if got := h.eval(t, "1+2"); got != "3\n" {
		t.Errorf("first host after the second tried: %q", got)
	}
	// Once the first is gone, however it went, the root is free.
	h.Kill()
	h2 := startHostProc(t, root, "--isolation", "inproc")
	if len(h2.Login) == 0 { // the user exists now: the same login, on the new port
		for i, a := range h.Login {
			if i > 0 && h.Login[i-1] == "-p" {
				a = h2.Port
			}
			h2.Login = append(h2.Login, a)
		}
	}
	if got := h2.eval(t, "2+3"); got != "5\n" {
		t.Errorf("host after the first was killed: %q", got)
	}
}

// SIGHUP reloads (the trusted CA file here) and never ends the host; it
// is the same process after it, and SIGTERM still shuts it down cleanly.
func TestSIGHUPReloadsAndKeepsTheHost(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	caFile := filepath.Join(t.TempDir(), "trusted")
	if err := os.WriteFile(caFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHostProc(t, root, "--isolation", "inproc", "--trusted-user-ca-keys", caFile)
	pid := h.cmd.Process.Pid
	if err := os.WriteFile(caFile, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, h, "reload failed")
	if err := os.WriteFile(caFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, h, `msg=reloaded part="front door"`)
	if h.cmd.ProcessState != nil || syscall.Kill(pid, 0) != nil {
		t.Fatal("the host ended on SIGHUP")
	}
	if got := h.eval(t, "1+2"); got != "3\n" {
		t.Errorf("after SIGHUP: %q", got)
	}
	if code := h.Stop(t); code != 0 {
		t.Errorf("SIGTERM after SIGHUP: exit %d\n%s", code, h.Log())
	}
	if !strings.Contains(h.Log(), "shutting down") {
		t.Errorf("no graceful shutdown in the log:\n%s", h.Log())
	}
}

// waitLog waits (bounded) until the host has logged text.
func waitLog(tb testing.TB, h *hostProc, text string) {
	tb.Helper()
	for i := 0; !strings.Contains(h.Log(), text); i++ {
		if i == 400 {
			tb.Fatalf("host never logged %q:\n%s", text, h.Log())
		}
		time.Sleep(25 * time.Millisecond)
	}
}
