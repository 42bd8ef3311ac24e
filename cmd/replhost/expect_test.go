package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// needTool skips a test whose client is not installed; .ci/run installs
// them, so CI runs every such test.
func needTool(tb testing.TB, name string) {
	tb.Helper()
	if _, err := exec.LookPath(name); err != nil {
		tb.Skipf("%s not installed (apt-get install -y expect openssh-client)", name)
	}
}

// sshArgs are the OpenSSH arguments that log in to h as its first user:
// the command the host printed, without "ssh".
func (h *hostProc) sshArgs(tb testing.TB) []string {
	tb.Helper()
	if len(h.Login) < 2 {
		tb.Fatalf("host printed no ssh command; log:\n%s", h.Log())
	}
	return append([]string{"-o", "BatchMode=yes", "-o", "LogLevel=ERROR"}, h.Login[1:]...)
}

// The expect script of a new user's first minutes, with OpenSSH's ssh.
func TestExpectBasics(t *testing.T) {
	needTool(t, "expect")
	needTool(t, "ssh")
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	script, _ := filepath.Abs("../../testdata/expect/basics.exp")
	cmd := exec.Command("expect", append([]string{script}, h.sshArgs(t)...)...)
	cmd.Dir = filepath.Dir(h.Root)
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^ok [0-9a-f-]{36}$`).Match(out) {
		t.Fatalf("expect basics.exp: %v\n%s\nhost log:\n%s", err, out, h.Log())
	}
}

// ssh HOST < prog.go prints what the program prints; a failing program
// exits 1 with error: on stderr.
func TestOpenSSHScript(t *testing.T) {
	needTool(t, "ssh")
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	run := func(prog string) (string, string, int) {
		cmd := exec.Command("ssh", append(h.sshArgs(t), "-T")...)
		cmd.Dir = filepath.Dir(h.Root)
		cmd.Stdin = stringsReader(prog)
		var out, errOut stringsBuilder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), code
	}
	out, errOut, code := run("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n")
	if out != "0\n1\n2\n" || code != 0 || errOut != "" {
		t.Errorf("program: %q %q %d; want 0 1 2, status 0", out, errOut, code)
	}
	out, errOut, code = run("import \"fmt\"\nfmt.Println(\"start\")\nvar x int = \"no\"\n")
	if out != "start\n" || code != 1 || !regexp.MustCompile(`^error: 3:\d+: .*\n$`).MatchString(errOut) {
		t.Errorf("failing program: %q %q %d; want start, one error line at line 3, status 1", out, errOut, code)
	}
}

// Bracketed paste of a 30-line function: one cell, run once.
func TestExpectPaste(t *testing.T) {
	needTool(t, "expect")
	needTool(t, "ssh")
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	script, _ := filepath.Abs("../../testdata/expect/paste.exp")
	block, _ := filepath.Abs("../../testdata/expect/paste_block.go.txt")
	cmd := exec.Command("expect", append([]string{script, block}, h.sshArgs(t)...)...)
	cmd.Dir = filepath.Dir(h.Root)
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^ok [0-9a-f-]{36}$`).Match(out) {
		t.Fatalf("expect paste.exp: %v\n%s\nhost log:\n%s", err, out, h.Log())
	}
}
