package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// readmeCommands are the README's example lines run by OpenSSH's clients
// through the ssh_config the first start writes: every one of them, as
// written, but for the placeholders UUID and HEX.
func readmeCommands(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("../../README.md")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "$ ")
		if !strings.HasPrefix(line, "ssh -F ") && !strings.HasPrefix(line, "scp -F ") && !strings.HasPrefix(line, "sftp -F ") {
			continue
		}
		if i := regexp.MustCompile(`\s{2,}#`).FindStringIndex(line); i != nil {
			line = strings.TrimSpace(line[:i[0]])
		}
		cmds = append(cmds, line)
	}
	return cmds
}

// The README's commands work when pasted (issue 14): each runs in the
// directory the host was started in, with the files it names made first.
func TestReadmeExamplesRunAsWritten(t *testing.T) {
	needTool(t, "ssh")
	needTool(t, "scp")
	needTool(t, "sftp")
	dir := t.TempDir()
	h := startHostProc(t, filepath.Join(dir, "replhost-root"))
	if len(h.Login) == 0 {
		t.Fatalf("no login printed: %s", h.Log())
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := "a,b\n1,2\n"
	sum := sha256.Sum256([]byte(data))
	write("prog.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"from prog.go\") }\n")
	write("greet.go", testhost.GreetPackage("hello"))
	write("data.csv", data)
	write("records.txt", " a \nb\n")
	write("set.tar.gz", testhost.TarGz(t, map[string]string{"x.txt": "x"}))

	run := func(line, stdin string) (string, error) {
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	newSession := func() string {
		out, err := run("ssh -F replhost-root/ssh_config replhost new", "")
		if id := strings.TrimSpace(out); err != nil || len(id) != 36 {
			t.Fatalf("new: %q, %v", out, err)
		}
		return strings.TrimSpace(out)
	}
	id := newSession()
	if out, err := run("ssh -F replhost-root/ssh_config replhost eval --session "+id+
		` 'import "udf"; import "strings"; udf.Register("clean", func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) })'`, ""); err != nil {
		t.Fatalf("register clean: %q, %v", out, err)
	}

	cmds := readmeCommands(t)
	if len(cmds) < 12 {
		t.Fatalf("found %d README commands; want the whole set", len(cmds))
	}
	for _, line := range cmds {
		stdin := ""
		switch {
		case strings.HasSuffix(line, " replhost") && strings.HasPrefix(line, "ssh "):
			stdin = "1+2\n" // the interactive login, scripted here
		case strings.HasPrefix(line, "sftp "):
			stdin = "ls\n"
		case strings.Contains(line, " -t ") && strings.Contains(line, " attach "):
			line = strings.Replace(line, " -t ", " ", 1) // no tty here: attach runs stdin as a script
			stdin = "x\n"
		}
		target := id
		if strings.Contains(line, " kill UUID") {
			target = newSession() // kill one of its own, not the session the rest use
		}
		line = strings.ReplaceAll(line, "UUID", target)
		line = strings.ReplaceAll(line, "HEX", hex.EncodeToString(sum[:]))
		out, err := run(line, stdin)
		if err != nil {
			t.Errorf("%s: %v\n%s", line, err, out)
			continue
		}
		t.Logf("%s\n%s", line, out)
	}
}
