package sftpd

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/artifacts"
	"go.uber.org/goleak"
)

// The real OpenSSH sftp and scp clients, talking to Serve without ssh:
// `sftp -D PROGRAM` runs an sftp server on the client's pipes, and
// `scp -S PROGRAM` runs PROGRAM in place of ssh. PROGRAM is this test
// binary, which serves when serveEnv names a root of session folders (all
// owned by "alice"), and writes a marker file when Serve returns.

const (
	serveEnv = "SFTPD_TEST_SERVE_ROOT"
	slowEnv  = "SFTPD_TEST_SLOW"
	quotaEnv = "SFTPD_TEST_QUOTA" // bytes of each session's disk quota
)

func TestMain(m *testing.M) {
	if root := os.Getenv(serveEnv); root != "" {
		os.Exit(serveStdio(root))
	}
	goleak.VerifyTestMain(m) // Serve and its handles end with the connection
}

// stdio is the helper server's connection; slow makes each read wait a
// millisecond, so that a big upload lasts long enough to be killed.
type stdio struct{ slow bool }

func (s stdio) Read(p []byte) (int, error) {
	if s.slow {
		time.Sleep(time.Millisecond)
	}
	return os.Stdin.Read(p)
}

func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdout.Close() }
func (stdio) Stderr() io.ReadWriter       { return os.Stderr }

func serveStdio(root string) int {
	s := &sessions{stores: map[string]map[string]*artifacts.Store{"alice": {}}}
	ents, _ := os.ReadDir(root)
	quota, _ := strconv.ParseInt(os.Getenv(quotaEnv), 10, 64)
	for _, e := range ents {
		st, err := artifacts.Open(filepath.Join(root, e.Name()), artifacts.Limits{}, artifacts.Quota(quota, 0))
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		s.stores["alice"][e.Name()] = st
	}
	signal.Ignore(syscall.SIGPIPE) // a killed client: fail writes, don't die
	err := Serve(stdio{slow: os.Getenv(slowEnv) != ""}, s, "alice")
	os.WriteFile(root+".served", []byte(""), 0o644)
	if err != nil {
		return 1
	}
	return 0
}

// openssh prepares a session root with session a1 and returns it with the
// environment that makes this binary an sftp server on it.
func openssh(tb testing.TB, tool string) (root string, env []string) {
	tb.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		tb.Skipf("no %s: %v", tool, err)
	}
	root = filepath.Join(tb.TempDir(), "root")
	if err := os.MkdirAll(filepath.Join(root, "a1"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return root, append(os.Environ(), serveEnv+"="+root)
}

func TestOpenSSHSftpBatch(t *testing.T) {
	root, env := openssh(t, "sftp")
	local := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(local, "greet"), 0o755))
	must(os.WriteFile(filepath.Join(local, "greet", "greet.go"), []byte("package greet\n"), 0o644))
	must(os.WriteFile(filepath.Join(local, "data.txt"), []byte("1,2\n"), 0o644))
	must(os.WriteFile(filepath.Join(local, "set.tar.gz"), tgz(t, map[string]string{"in/a.txt": "a"}), 0o644))
	batch := strings.Join([]string{
		"cd /a1",
		"put -r greet classes/src/",
		"put data.txt files/",
		"put set.tar.gz archives/",
		"ls -1 files",
		"ls -1 files/set.tar.gz/in",
		"get files/data.txt back.txt",
		"-put data.txt files/../../evil.txt",
		"-put data.txt classes/repl/x",
		"-rename files/data.txt files/other.txt",
		"rm archives/set.tar.gz",
		"ls -1 files",
	}, "\n")
	cmd := exec.Command("sftp", "-b", "-", "-D", os.Args[0])
	cmd.Dir, cmd.Env, cmd.Stdin = local, env, strings.NewReader(batch)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("sftp: %v\nstdout:\n%s\nstderr:\n%s", err, &out, &errs)
	}
	for _, want := range []string{"files/data.txt\nfiles/set.tar.gz\n", "files/set.tar.gz/in/a.txt\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("got stdout %q; want it to hold %q", &out, want)
		}
	}
	for _, want := range []string{"must start with classes/src/, files/ or archives/", "rename is not supported"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("got stderr %q; want it to hold %q", &errs, want)
		}
	}
	for p, want := range map[string]string{
		"a1/classes/src/greet/greet.go": "package greet\n", "a1/files/data.txt": "1,2\n",
	} {
		if got, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(got) != want {
			t.Errorf("got %q, %v at %s; want %q", got, err, p, want)
		}
	}
	if got, err := os.ReadFile(filepath.Join(local, "back.txt")); err != nil || string(got) != "1,2\n" {
		t.Errorf("got %q, %v; want the file back", got, err)
	}
	for _, p := range []string{"evil.txt", "a1/classes/repl/x", "a1/files/set.tar.gz", "a1/archives/set.tar.gz"} {
		if _, err := os.Lstat(filepath.Join(root, p)); !os.IsNotExist(err) {
			t.Errorf("got %v for %s; want it absent", err, p)
		}
	}
}

func TestOpenSSHScp(t *testing.T) {
	root, env := openssh(t, "scp")
	src := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(src, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// -s: the sftp protocol (OpenSSH 9's default); -S: this binary as "ssh".
	cmd := exec.Command("scp", "-s", "-S", os.Args[0], src, "alice@host:/a1/files/")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scp: %v\n%s", err, out)
	}
	if got, err := os.ReadFile(filepath.Join(root, "a1/files/data.csv")); err != nil || string(got) != "a,b\n" {
		t.Errorf("got %q, %v; want the uploaded bytes", got, err)
	}
	cmd = exec.Command("scp", "-s", "-S", os.Args[0], src, "alice@host:/a1/nowhere/x")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("got success for a name outside the kinds' folders; want a failure\n%s", out)
	}
}

// OpenSSH's sftp and scp uploads past a session's disk quota fail, saying
// so in one line, and leave nothing; the next session's uploads go on.
func TestOpenSSHQuota(t *testing.T) {
	root, env := openssh(t, "scp")
	if err := os.Mkdir(filepath.Join(root, "a2"), 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(env, quotaEnv+"="+strconv.Itoa(1<<20))
	local := t.TempDir()
	big, small := filepath.Join(local, "big.bin"), filepath.Join(local, "small.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte("q"), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, []byte("small"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range [][]string{
		{"sftp", "-b", "-", "-D", os.Args[0]},
		{"scp", "-s", "-S", os.Args[0], big, "alice@host:/a1/files/"},
	} {
		cmd := exec.Command(tool[0], tool[1:]...)
		cmd.Env, cmd.Stdin = env, strings.NewReader("put "+big+" /a1/files/big.bin\n")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s past the quota: got success; want a failure\n%s", tool[0], out)
		}
		if n := strings.Count(string(out), "disk quota exceeded"); n != 1 {
			t.Errorf("%s: got %d lines saying disk quota exceeded; want 1\n%s", tool[0], n, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "a1/files/big.bin")); !os.IsNotExist(err) {
		t.Errorf("got %v for files/big.bin; want it absent", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "a1", ".tmp")); len(ents) != 0 {
		t.Errorf("got %d temp files; want none", len(ents))
	}
	cmd := exec.Command("scp", "-s", "-S", os.Args[0], small, "alice@host:/a2/files/")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("another session's upload: %v\n%s", err, out)
	}
}

// A client killed mid-upload leaves neither the artifact nor a temp file.
func TestOpenSSHKilledUpload(t *testing.T) {
	root, env := openssh(t, "sftp")
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte("z"), 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sftp", "-b", "-", "-D", os.Args[0])
	cmd.Env, cmd.Stdin = append(env, slowEnv+"=1"), strings.NewReader("put "+big+" /a1/files/big.bin\n")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "a1", ".tmp")
	grown := func() bool { // the server has taken some bytes
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Size() > 0 {
				return true
			}
		}
		return false
	}
	if !waitFor(grown) {
		t.Fatal("the upload never started")
	}
	cmd.Process.Kill()
	cmd.Wait()
	served := func() bool { _, err := os.Stat(root + ".served"); return err == nil }
	if !waitFor(served) { // the server sees the pipe close and aborts
		t.Fatal("the server never ended")
	}
	if _, err := os.Lstat(filepath.Join(root, "a1/files/big.bin")); !os.IsNotExist(err) {
		t.Errorf("got %v for files/big.bin; want it absent", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("got %d temp files; want none", len(ents))
	}
}

// waitFor polls cond for at most 30 s (a bound, not an assertion on time).
func waitFor(cond func() bool) bool {
	for range 3000 {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
