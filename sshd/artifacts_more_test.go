package sshd_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/internal/testhost"
)

// upload stores body as name in session id through `artifacts add`.
func upload(tb testing.TB, h *testhost.Host, user, id, name, body string) {
	tb.Helper()
	if r := h.Run(tb, user, "artifacts add --session "+id+" "+name, body); r.Status != 0 {
		tb.Fatalf("artifacts add %s: %+v", name, r)
	}
}

// The REPL side of artifacts: :artifacts lists the uploads, :load runs a
// file of files/, and :reload after a re-upload of a package runs the
// journal in a fresh interpreter that imports the new code.
func TestReplArtifactCommands(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	upload(t, h, "alice", id, "classes/src/greet/greet.go", testhost.GreetPackage("hello"))
	upload(t, h, "alice", id, "files/prog.go", "import \"fmt\"\nimport \"greet\"\nloaded := greet.Hello(\"load\")\nfmt.Println(loaded)\n")
	upload(t, h, "alice", id, "files/data.txt", "some data")

	term := h.Terminal(t, "alice", "attach "+id)
	term.Expect(`go> `)
	term.Send(":artifacts\r")
	term.Expect(`:artifacts\r\n`)
	m := term.Expect(`go> `)
	list := testhost.Clean(m[len(m)-1])
	for _, want := range []string{
		`classes/src/greet/greet.go \d+ [0-9a-f]{64}\n`,
		`files/prog.go \d+ [0-9a-f]{64}\n`,
		`files/data.txt 9 [0-9a-f]{64}\n`,
	} {
		if !regexp.MustCompile(want).MatchString(list) {
			t.Errorf(":artifacts printed %q; want a line matching %q", list, want)
		}
	}

	term.Send("import \"greet\"\r")
	term.Expect(`go> `)
	term.Send("greet.Hello(\"a\")\r")
	term.Expect(`\r\n"hello, a"\r\n`)
	term.Send(":load prog.go\r")
	term.Expect(`\r\nhello, load\r\n`)
	term.Send("loaded\r")
	term.Expect(`\r\n"hello, load"\r\n`)

	tests := []struct{ name, cmd, want string }{
		{"missing-file", ":load nope.go", `error: load nope.go: .*no such file`},
		{"outside-files", ":load ../session.json", `error: load \.\./session\.json: .*`},
		{"absolute", ":load /etc/passwd", `error: load /etc/passwd: .*`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term.Send(tt.cmd + "\r")
			m := term.Expect(`\r\n(error: [^\r]*)\r\n`)
			if !regexp.MustCompile(tt.want).MatchString(m[1]) {
				t.Errorf("got %q; want a match of %q", m[1], tt.want)
			}
		})
	}

	// A re-upload changes nothing until :reload, which replays the journal
	// (import, the :load cell) into a fresh interpreter with the new code.
	upload(t, h, "alice", id, "classes/src/greet/greet.go", testhost.GreetPackage("bonjour"))
	term.Send("greet.Hello(\"b\")\r")
	term.Expect(`\r\n"hello, b"\r\n`)
	term.Send(":reload\r")
	term.Expect(`reloaded: \d+ cells replayed\r\n`)
	term.Send("greet.Hello(\"c\")\r")
	term.Expect(`\r\n"bonjour, c"\r\n`)
	term.Send("loaded\r")
	term.Expect(`\r\n"bonjour, load"\r\n`)

	// A package that no longer compiles: :reload says where, and the
	// session goes on.
	upload(t, h, "alice", id, "classes/src/greet/greet.go", "package greet\n\nfunc Hello(name string) string { return 1 }\n")
	term.Send(":reload\r")
	term.Expect(`:reload\r\n`)
	m = term.Expect(`go> `)
	if out := testhost.Clean(m[len(m)-1]); !strings.Contains(out, "greet.go:3:") {
		t.Errorf(":reload with a broken package printed %q; want the error's place in greet.go", out)
	}
	if out := testhost.Clean(m[len(m)-1]); !strings.Contains(out, "keeps its interpreter and journal") {
		t.Errorf(":reload with a broken package printed %q; want it to keep the session as it was", out)
	}
	term.Send("1+1\r")
	term.Expect(`\r\n2\r\n`)
	// The failed reload changed nothing: the state is there, and a fixed
	// package reloads.
	term.Send("loaded\r")
	term.Expect(`\r\n"bonjour, load"\r\n`)
	upload(t, h, "alice", id, "classes/src/greet/greet.go", "package greet\n\nfunc Hello(name string) string { return \"salut, \" + name }\n")
	term.Send(":reload\r")
	term.Expect(`reloaded: \d+ cells replayed\r\n`)
	// Detach and wait for the end, so that the host is done with the
	// session's directory before the test removes it.
	term.Expect(`go> `)
	term.Send("\x04")
	if code := term.Wait(); code != 0 {
		t.Errorf("detach: exit status %d; want 0", code)
	}
}

// The sftp view through the real server with the Go client: a file handle
// open for writing accepts fsetstat (chmod, chtimes) before Close, as scp
// sends one on every upload, and the artifact appears only at Close.
func TestSftpSetstatOnOpenUpload(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	c, err := sftp.NewClient(h.Dial(t, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.Create("/" + id + "/files/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("body")); err != nil {
		t.Fatal(err)
	}
	if err := f.Chmod(0o600); err != nil {
		t.Errorf("fsetstat on an open upload: %v; want it accepted", err)
	}
	if _, err := os.Stat(filepath.Join(h.Root, id, "files", "f.txt")); !os.IsNotExist(err) {
		t.Errorf("got %v before Close; want the artifact not visible yet", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(h.Root, id, "files", "f.txt")); err != nil || string(b) != "body" {
		t.Errorf("got %q, %v; want the uploaded bytes", b, err)
	}
	// Once closed, the path is an ordinary file: setstat needs it to exist.
	if err := c.Chmod("/"+id+"/files/none.txt", 0o600); err == nil {
		t.Error("setstat on a missing file succeeded; want not found")
	}
	// mkdir of an existing folder fails quietly (scp -r and put -r go on).
	if err := c.Mkdir("/" + id + "/files"); err == nil {
		t.Error("mkdir of an existing folder succeeded; want a failure")
	}
}

// Two sftp uploads of one package file race; the later Close wins whole
// and the package stays importable.
func TestSftpConcurrentPackageUploads(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := strings.TrimSpace(h.Run(t, "alice", "new", "").Stdout)
	words := []string{"one", "two", "three", "four"}
	done := make(chan error, len(words))
	for _, w := range words {
		go func() {
			c, err := sftp.NewClient(h.Dial(t, "alice"))
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			f, err := c.Create("/" + id + "/classes/src/greet/greet.go")
			if err != nil {
				done <- err
				return
			}
			if _, err := f.Write([]byte(testhost.GreetPackage(w))); err != nil {
				f.Close()
				done <- err
				return
			}
			done <- f.Close()
		}()
	}
	for range words {
		if err := <-done; err != nil {
			t.Errorf("upload: %v", err)
		}
	}
	r := h.Run(t, "alice", `eval --session `+id+` import "greet"; greet.Hello("x")`, "")
	ok := false
	for _, w := range words {
		ok = ok || r.Stdout == fmt.Sprintf("%q\n", w+", x")
	}
	if !ok || r.Status != 0 {
		t.Errorf("got %+v; want one whole upload's greeting", r)
	}
	if ents, _ := os.ReadDir(filepath.Join(h.Root, id, ".tmp")); len(ents) != 0 {
		t.Errorf("got %d temp files after the uploads; want none", len(ents))
	}
}

// BenchmarkSftpPutInProcess uploads 256 MiB with OpenSSH's sftp into an
// in-process server, so that go test's -cpuprofile sees the host's side:
//
//	go test -run '^$' -bench SftpPutInProcess -benchtime 2x -cpuprofile cpu.out ./sshd/
func BenchmarkSftpPutInProcess(b *testing.B) {
	if _, err := exec.LookPath("sftp"); err != nil {
		b.Skip("no sftp")
	}
	h := testhost.Start(b, testhost.Options{})
	id := strings.TrimSpace(h.Run(b, "alice", "new", "").Stdout)
	src := filepath.Join(b.TempDir(), "big.bin")
	data := make([]byte, 256<<20)
	rand.NewChaCha8([32]byte{7}).Read(data)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		b.Fatal(err)
	}
	data = nil
	args := h.SSHArgs(b, "alice")
	for i, a := range args {
		if a == "-p" { // sftp's port flag is -P; -l is ssh's
			args[i] = "-P"
		}
	}
	args = args[:len(args)-2] // drop -l alice: the destination says it
	batch := filepath.Join(b.TempDir(), "batch")
	b.SetBytes(256 << 20)
	for i := 0; b.Loop(); i++ {
		name := fmt.Sprintf("files/big-%d.bin", i)
		os.WriteFile(batch, []byte("put "+src+" /"+id+"/"+name+"\n"), 0o644)
		cmd := exec.Command("sftp", append(args, "-b", batch, "alice@"+h.HostName())...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("sftp: %v\n%s", err, out)
		}
		b.StopTimer()
		if r := h.Run(b, "alice", "artifacts rm --session "+id+" "+name, ""); r.Status != 0 {
			b.Fatalf("artifacts rm: %+v", r)
		}
		b.StartTimer()
	}
}
