package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/sandbox"
)

// replhostBin is the replhost binary these tests run, built once, with
// the worker binary beside it (workerBin), as go install ./cmd/... puts
// them.
var replhostBin, workerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "replhost-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	replhostBin, workerBin = filepath.Join(dir, "replhost"), filepath.Join(dir, sandbox.WorkerBinaryName)
	build := exec.Command("go", "build", "-o", dir+"/", ".", "../replhost-worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build replhost and its worker:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// hostProc is a replhost serve process.
type hostProc struct {
	cmd    *exec.Cmd
	Addr   string // host:port it listens on
	Port   string
	Root   string
	Login  []string // the ssh command it printed, split
	stderr *os.File
}

var listeningRE = regexp.MustCompile(`msg="replhost listening" addr=([0-9.:\[\]]+)`)

// startHostProc runs `replhost serve` on 127.0.0.1:0 with root and extra
// arguments, and waits until it listens. It is killed at the end of the test.
func startHostProc(tb testing.TB, root string, args ...string) *hostProc {
	tb.Helper()
	return startHostProcOf(tb, replhostBin, root, args...)
}

// startHostProcOf is startHostProc with another replhost binary.
func startHostProcOf(tb testing.TB, bin, root string, args ...string) *hostProc {
	tb.Helper()
	logFile, err := os.CreateTemp(tb.TempDir(), "host-*.log")
	if err != nil {
		tb.Fatal(err)
	}
	all := append([]string{"serve", "--listen", "127.0.0.1:0", "--root", root}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Dir = filepath.Dir(root)
	cmd.Stderr = logFile
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "USER=tester")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	h := &hostProc{cmd: cmd, Root: root, stderr: logFile}
	tb.Cleanup(func() { h.Kill() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(20 * time.Second)
	for h.Addr == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				tb.Fatalf("replhost exited before listening: %s", h.Log())
			}
			// The first ssh command printed (the full one; the next is
			// its ssh -F ROOT/ssh_config form).
			if f := strings.Fields(line); len(f) > 0 && f[0] == "ssh" && h.Login == nil {
				h.Login = f
			}
		case <-time.After(50 * time.Millisecond):
			if m := listeningRE.FindStringSubmatch(h.Log()); m != nil {
				h.Addr = m[1]
				h.Port = h.Addr[strings.LastIndex(h.Addr, ":")+1:]
			}
		case <-deadline:
			tb.Fatalf("replhost did not listen: %s", h.Log())
		}
	}
	// The host printed its ssh command before it logged that it listens
	// when it made a user's key (bootstrap): wait for that line, which may
	// still be in the pipe.
	if keys, _ := filepath.Glob(filepath.Join(root, "users", "*", "id_ed25519")); len(keys) > 0 {
		for h.Login == nil {
			select {
			case line, ok := <-lines:
				if !ok {
					tb.Fatalf("replhost exited before printing its ssh command: %s", h.Log())
				}
				if f := strings.Fields(line); len(f) > 0 && f[0] == "ssh" {
					h.Login = f
				}
			case <-deadline:
				tb.Fatalf("replhost printed no ssh command: %s", h.Log())
			}
		}
	}
	go func() {
		for range lines {
		}
	}()
	return h
}

// Log is what the host logged so far.
func (h *hostProc) Log() string {
	b, _ := os.ReadFile(h.stderr.Name())
	return string(b)
}

// Kill ends the host with SIGKILL, as a crash would.
func (h *hostProc) Kill() {
	if h.cmd.ProcessState == nil {
		h.cmd.Process.Kill()
		h.cmd.Wait()
	}
}

// Stop ends the host with SIGTERM and waits; it returns the exit status.
func (h *hostProc) Stop(tb testing.TB) int {
	tb.Helper()
	h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		tb.Fatalf("host did not stop on SIGTERM: %s", h.Log())
	}
	return h.cmd.ProcessState.ExitCode()
}
