package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

// dialHost logs in to a replhost process as the user its first start made,
// checking the host key it keeps in ROOT.
func dialHost(tb testing.TB, h *hostProc) *gossh.Client {
	tb.Helper()
	return dialAs(tb, h, "tester", readKey(tb, filepath.Join(h.Root, "users", "tester", "id_ed25519")))
}

// readKey reads a private key file.
func readKey(tb testing.TB, file string) gossh.Signer {
	tb.Helper()
	pem, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	key, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

// dialAs logs in to h as user name with signer.
func dialAs(tb testing.TB, h *hostProc, name string, signer gossh.Signer) *gossh.Client {
	tb.Helper()
	hostPEM, err := os.ReadFile(filepath.Join(h.Root, hostKeyFile))
	if err != nil {
		tb.Fatal(err)
	}
	hostKey, err := gossh.ParsePrivateKey(hostPEM)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := gossh.Dial("tcp", h.Addr, &gossh.ClientConfig{
		User: name, Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.FixedHostKey(hostKey.PublicKey()), Timeout: 10 * time.Second,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// expectOn runs cmd on c and fails unless it exits 0 and prints want.
func expectOn(tb testing.TB, c *gossh.Client, cmd, want string) {
	tb.Helper()
	if r := testhost.RunOn(tb, c, cmd, ""); r != (testhost.Result{Stdout: want}) {
		tb.Fatalf("%s: %+v; want %q", cmd, r, want)
	}
}

// newWithG makes a session that defines x and g, and returns its uuid.
func newWithG(tb testing.TB, c *gossh.Client) string {
	tb.Helper()
	r := testhost.RunOn(tb, c, "new", "")
	id := strings.TrimSpace(r.Stdout)
	if r.Status != 0 || len(id) != 36 {
		tb.Fatalf("new: %+v", r)
	}
	expectOn(tb, c, "eval --session "+id+" x := 41", "")
	expectOn(tb, c, "eval --session "+id+" func g() int { return x + 1 }", "")
	return id
}

// expectRestorable checks that sessions lists id, and as restorable.
func expectRestorable(tb testing.TB, c *gossh.Client, id string) {
	tb.Helper()
	r := testhost.RunOn(tb, c, "sessions", "")
	if !strings.Contains(r.Stdout, id+" restorable ") {
		tb.Errorf("sessions: %+v; want %s restorable", r, id)
	}
}

// A session survives a graceful restart of the host (SIGTERM): an attached
// terminal is told and closed, and the next host brings the session back
// for eval --session and for attach.
func TestSessionSurvivesGracefulRestart(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	c := dialHost(t, h)
	id := newWithG(t, c)
	term := testhost.OpenTerm(t, c, "attach "+id)
	term.Expect("go> ")
	term.Send("g()\r")
	term.Expect(`\r\n42\r\n`)

	if code := h.Stop(t); code != 0 {
		t.Errorf("exit status on SIGTERM = %d; want 0; log:\n%s", code, h.Log())
	}
	term.Expect("host shutting down; attach again when it is back")

	h = startHostProc(t, root)
	c = dialHost(t, h)
	expectRestorable(t, c, id)
	expectOn(t, c, "eval --session "+id+" g()", "42\n")
	term = testhost.OpenTerm(t, c, "attach "+id)
	term.Expect("session " + id + "\r\n")
	term.Expect("go> ")
	term.Send("g()\r")
	term.Expect(`\r\n42\r\n`)
	term.Send("\x04")
	term.Wait()
}

// SIGKILL of the host while a cell runs: that cell is not in the journal,
// every earlier one is, and the next host restores the session from them.
func TestSessionSurvivesSIGKILLMidCell(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	c := dialHost(t, h)
	id := newWithG(t, c)

	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cell := "eval --session " + id + " import \"fmt\"\nx = 1000\nfmt.Println(\"spinning\")\nfor {}"
	if err := s.Start(cell); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "spinning\n" {
		t.Fatalf("running cell printed %q, %v; want spinning", line, err)
	}
	h.Kill()

	// The journal is one segment file (classes/repl/journal.seg), read
	// here as the next host reads it.
	j := repl.OpenJournal(filepath.Join(root, id), false)
	cells, err := j.Cells()
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x := 41", "func g() int { return x + 1 }"}
	if strings.Join(cells, "\n") != strings.Join(want, "\n") {
		t.Errorf("journal after SIGKILL:\n%s\nwant:\n%s", strings.Join(cells, "\n"), strings.Join(want, "\n"))
	}

	h = startHostProc(t, root)
	c = dialHost(t, h)
	expectRestorable(t, c, id)
	term := testhost.OpenTerm(t, c, "attach "+id)
	term.Expect("go> ")
	term.Send("g()\r")
	term.Expect(`\r\n42\r\n`)
	term.Send("\x04")
	term.Wait()
	expectOn(t, c, "eval --session "+id+" g()", "42\n")
}
