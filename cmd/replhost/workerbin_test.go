package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// workerExes waits (bounded) for the host's pool to start workers and
// returns the binaries they run.
func workerExes(t *testing.T, h *hostProc) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var exes []string
		for _, pid := range workerPIDs(h.cmd.Process.Pid) {
			if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
				exes = append(exes, exe)
			}
		}
		if len(exes) > 0 {
			return exes
		}
		if time.Now().After(deadline) {
			t.Fatalf("no worker started: %s", h.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Installed side by side (go install ./cmd/..., the Dockerfile), the host
// runs its workers from replhost-worker and says so; a session works.
func TestWorkersRunTheWorkerBinary(t *testing.T) {
	needTool(t, "ssh")
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	for _, exe := range workerExes(t, h) {
		if exe != workerBin {
			t.Errorf("a worker runs %s; want %s", exe, workerBin)
		}
	}
	if !strings.Contains(h.Log(), "binary="+workerBin) {
		t.Errorf("the host's log does not name the worker binary: %s", h.Log())
	}
	cmd := exec.Command("ssh", append(h.sshArgs(t), "eval", "40+2")...)
	cmd.Dir = filepath.Dir(h.Root)
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Errorf("eval 40+2: %q, %v; want 42", out, err)
	}
}

// Alone (go run ./cmd/replhost, a copied binary), the host is its own
// worker binary, `replhost worker`.
func TestWorkersWithoutTheWorkerBinary(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "replhost")
	copyExecutable(t, replhostBin, alone)
	h := startHostProcOf(t, alone, filepath.Join(t.TempDir(), "root"))
	for _, exe := range workerExes(t, h) {
		if exe != alone {
			t.Errorf("a worker runs %s; want %s", exe, alone)
		}
	}
}

// --worker-bin names the worker binary; one that is no executable file
// stops the host with one line.
func TestWorkerBinFlag(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "replhost")
	copyExecutable(t, replhostBin, alone)
	h := startHostProcOf(t, alone, filepath.Join(t.TempDir(), "root"), "--worker-bin", workerBin)
	for _, exe := range workerExes(t, h) {
		if exe != workerBin {
			t.Errorf("a worker runs %s; want %s (--worker-bin)", exe, workerBin)
		}
	}
	missing := filepath.Join(t.TempDir(), "no-such-worker")
	cmd := exec.Command(replhostBin, "serve", "--listen", "127.0.0.1:0", "--root", filepath.Join(t.TempDir(), "root"), "--worker-bin", missing)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("serve --worker-bin %s: exit 0 (%q); want a failure", missing, out)
	}
	if got, want := strings.TrimSpace(string(out)), "--worker-bin "+missing+": not an executable file"; strings.Count(got, "\n") != 0 || !strings.Contains(got, want) {
		t.Errorf("serve --worker-bin %s printed %q; want one line with %q", missing, got, want)
	}
}

// A worker binary of another build (here: other build tags) stops the
// host at its start with one line naming the difference and what to do.
func TestWorkerBinaryOfAnotherBuild(t *testing.T) {
	other := filepath.Join(t.TempDir(), "replhost-worker")
	build := exec.Command("go", "build", "-tags", "replhost_other_build", "-o", other, "../replhost-worker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(replhostBin, "serve", "--listen", "127.0.0.1:0", "--root", filepath.Join(t.TempDir(), "root"), "--worker-bin", other)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("serve with a worker of another build: exit 0 (%q); want a failure", out)
	}
	got := strings.TrimSpace(string(out))
	for _, want := range []string{other, `-tags="replhost_other_build"`, "go install ./cmd/..."} {
		if strings.Count(got, "\n") != 0 || !strings.Contains(got, want) {
			t.Errorf("serve printed %q; want one line with %q", got, want)
		}
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
