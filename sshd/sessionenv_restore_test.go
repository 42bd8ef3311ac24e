package sshd_test

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// runWithLang runs cmd as alice on a new connection that sends LANG=lang;
// it returns the result and the connection's SSH_CONNECTION as the host
// sees it.
func runWithLang(t *testing.T, h *testhost.Host, lang, cmd string) (testhost.Result, string) {
	t.Helper()
	c := h.Dial(t, "alice")
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Setenv("LANG", lang); err != nil {
		t.Fatalf("Setenv: %v", err)
	}
	var out, errOut strings.Builder
	s.Stdout, s.Stderr = &out, &errOut
	res := testhost.Result{}
	if err := s.Run(cmd); err != nil {
		ee, ok := err.(*gossh.ExitError)
		if !ok {
			t.Fatalf("run %q: %v", cmd, err)
		}
		res.Status = ee.ExitStatus()
	}
	res.Stdout, res.Stderr = out.String(), errOut.String()
	cl, srv := c.Conn.LocalAddr().(*net.TCPAddr), c.Conn.RemoteAddr().(*net.TCPAddr)
	return res, cl.IP.String() + " " + strconv.Itoa(cl.Port) + " " + srv.IP.String() + " " + strconv.Itoa(srv.Port)
}

// A session keeps the environment of the login that created it across
// restores: after its worker crashes and after a host restart, replayed
// cells that read os.Getenv compute what they did, and later cells see
// the same variables, whatever the attaching login sends (as a program
// started in tmux keeps its environment when another terminal attaches).
func TestSessionEnvironmentSurvivesRestores(t *testing.T) {
	root := t.TempDir()
	opts := testhost.Options{Root: root, Process: true, KeepRoot: true}
	h := testhost.Start(t, opts)
	res, conn := runWithLang(t, h, "de_DE.UTF-8", "new")
	id := strings.TrimSpace(res.Stdout)
	if res.Status != 0 || len(id) != 36 {
		t.Fatalf("new: %+v", res)
	}
	expectRun(t, h, "alice", "eval --session "+id+` import "os"; lang, from := os.Getenv("LANG"), os.Getenv("SSH_CONNECTION")`, "")
	probe := "eval --session " + id + ` import "fmt"; fmt.Println(lang, os.Getenv("LANG"), from == os.Getenv("SSH_CONNECTION"), os.Getenv("SSH_CONNECTION"))`
	want := "de_DE.UTF-8 de_DE.UTF-8 true " + conn + "\n"
	check := func(when string) {
		t.Helper()
		got, _ := runWithLang(t, h, "fr_FR.UTF-8", probe)
		if got.Status != 0 || got.Stdout != want {
			t.Errorf("%s: %+v; want %q", when, got, want)
		}
	}
	check("live")

	crash := h.Run(t, "alice", "eval --session "+id+` import "time"; go func() { panic("boom") }(); time.Sleep(time.Second)`, "")
	if !strings.Contains(crash.Stderr, "session crashed") {
		t.Fatalf("crash: %+v; want session crashed", crash)
	}
	check("after the worker's crash")

	h.Stop()
	h = testhost.Start(t, opts)
	check("after a host restart")
}
