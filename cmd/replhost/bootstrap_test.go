package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A fresh root needs nothing else: the host makes its key and a user, and
// the ssh command it prints logs in as printed.
func TestFirstStartPrintsAWorkingSSHCommand(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH client not installed")
	}
	root := filepath.Join(t.TempDir(), "replhost-root")
	h := startHostProc(t, root)
	if len(h.Login) == 0 {
		t.Fatalf("no ssh command printed; log:\n%s", h.Log())
	}
	key, err := os.ReadFile(filepath.Join(root, "host_ed25519"))
	if err != nil {
		t.Fatalf("host key not created: %v", err)
	}
	args := append(h.Login[1:], "-o", "BatchMode=yes", "eval", "1+2")
	cmd := exec.Command("ssh", args...)
	cmd.Dir = filepath.Dir(root)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "3" {
		t.Fatalf("%v: %q, %v; want 3", h.Login, out, err)
	}
	// The ssh_config it wrote works from any directory, for ssh, scp and sftp.
	cfg := filepath.Join(root, "ssh_config")
	cmd = exec.Command("ssh", "-F", cfg, "-o", "BatchMode=yes", "replhost", "eval", "2+3")
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "5" {
		t.Fatalf("ssh -F %s replhost eval 2+3: %q, %v; want 5", cfg, out, err)
	}
	cmd = exec.Command("sftp", "-F", cfg, "-o", "BatchMode=yes", "-b", "-", "replhost")
	cmd.Stdin, cmd.Dir = strings.NewReader("ls\n"), t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sftp -F %s replhost: %q, %v", cfg, out, err)
	}
	h.Stop(t)

	// The second start keeps the host key and the user.
	h2 := startHostProc(t, root)
	key2, _ := os.ReadFile(filepath.Join(root, "host_ed25519"))
	if string(key) != string(key2) {
		t.Error("host key changed across restarts")
	}
	out, err = exec.Command(replhostBin, "user", "ls", "--root", root).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "tester" {
		t.Errorf("user ls: %q, %v; want tester", out, err)
	}
	_ = h2
}
