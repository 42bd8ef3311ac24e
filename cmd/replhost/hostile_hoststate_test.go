package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// addCanary adds the user canary to the host's root and returns its key.
func addCanary(tb testing.TB, h *hostProc) gossh.Signer {
	tb.Helper()
	signer, pub := testhost.NewUserKey(tb, tb.TempDir(), "canary")
	if out, err := exec.Command(replhostBin, "user", "add", "--root", h.Root, "canary", pub).CombinedOutput(); err != nil {
		tb.Fatalf("replhost user add: %v\n%s", err, out)
	}
	return signer
}

const canarySecret = "canary-secret-7f3a"

// Everything a session can write in its directory is hostile input to the
// host. Each case plants on disk what a compromised worker could (so it
// holds whether or not the worker can still write there): the host, the
// same process throughout, gives the bad session one clear error, never
// reads or writes another user's data, and the canary session of another
// user keeps its state.
func TestHostileSessionFilesThroughTheBinary(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	c := dialHost(t, h)
	cc := dialAs(t, h, "canary", addCanary(t, h))
	canary := strings.TrimSpace(testhost.RunOn(t, cc, "new", "").Stdout)
	expectOn(t, cc, "eval --session "+canary+" secret := \""+canarySecret+"\"", "")
	expectOn(t, cc, "eval --session "+canary+" balance := 100", "")
	history := filepath.Join(root, "users", "canary", "history")
	if err := os.WriteFile(history, []byte("token := \""+canarySecret+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	canaryDir := filepath.Join(root, canary)
	canaryJournal := filepath.Join(canaryDir, "classes", "repl")

	type hostileCase struct {
		name  string
		plant func(t *testing.T, dir string)
		want  string // on the bad session's stderr
	}
	seg := func(dir string) string { return filepath.Join(dir, "classes", "repl", "journal.seg") }
	cases := []hostileCase{
		{"journal-symlink-to-other-users-history", func(t *testing.T, dir string) { testhost.PlantSymlink(t, seg(dir), history) }, "journal.seg"},
		{"journal-symlink-to-etc-passwd", func(t *testing.T, dir string) { testhost.PlantSymlink(t, seg(dir), "/etc/passwd") }, "journal.seg"},
		{"journal-symlink-to-proc-self-environ", func(t *testing.T, dir string) { testhost.PlantSymlink(t, seg(dir), "/proc/self/environ") }, "journal.seg"},
		{"journal-symlink-to-dev-zero", func(t *testing.T, dir string) { testhost.PlantSymlink(t, seg(dir), "/dev/zero") }, "journal.seg"},
		{"journal-symlink-to-other-session", func(t *testing.T, dir string) { testhost.PlantSymlink(t, seg(dir), seg(canaryDir)) }, "journal.seg"},
		{"journal-sparse-8GiB", func(t *testing.T, dir string) { testhost.PlantSparse(t, seg(dir), 8<<30) }, "larger than 64 MiB"},
		{"journal-fifo", func(t *testing.T, dir string) {
			os.Remove(seg(dir))
			if err := syscall.Mkfifo(seg(dir), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"old-format-cell-symlink-to-history", func(t *testing.T, dir string) {
			os.Remove(seg(dir))
			testhost.PlantSymlink(t, filepath.Join(dir, "classes", "repl", "000001.go"), history)
		}, "000001.go"},
		{"classes-repl-symlink-into-other-session", func(t *testing.T, dir string) {
			testhost.SwapDirForSymlink(t, filepath.Join(dir, "classes", "repl"), canaryJournal)
		}, "classes/repl"},
	}
	metaCases := []hostileCase{
		{"session-json-sparse-8GiB", func(t *testing.T, dir string) { testhost.PlantSparse(t, filepath.Join(dir, "session.json"), 8<<30) }, ""},
		{"session-json-symlink-to-dev-zero", func(t *testing.T, dir string) {
			testhost.PlantSymlink(t, filepath.Join(dir, "session.json"), "/dev/zero")
		}, ""},
		{"session-json-owner-rewritten-to-canary", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "session.json")
			b := testhost.FileBytes(t, p)
			if err := os.WriteFile(p, []byte(strings.Replace(b, `"owner": "tester"`, `"owner": "canary"`, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	ids := map[string]string{}
	for _, tc := range append(append([]hostileCase(nil), cases...), metaCases...) {
		ids[tc.name] = newWithG(t, c)
	}

	// While the host runs: a loaded session's classes/repl is swapped for a
	// symlink into the canary's journal; its next cells must not land there.
	live := newWithG(t, c)
	canaryBefore := testhost.TreeBytes(t, canaryDir)
	testhost.SwapDirForSymlink(t, filepath.Join(root, live, "classes", "repl"), canaryJournal)
	expectOn(t, c, "eval --session "+live+" stolen := 1", "")
	if after := testhost.TreeBytes(t, canaryDir); !reflect.DeepEqual(after, canaryBefore) {
		t.Errorf("a cell of a live session whose classes/repl became a symlink changed the canary's files:\nbefore %q\nafter  %q", canaryBefore, after)
	}

	h.Kill() // a crash: the next host reads everything from disk
	for _, tc := range append(append([]hostileCase(nil), cases...), metaCases...) {
		tc.plant(t, filepath.Join(root, ids[tc.name]))
	}
	h = startHostProc(t, root)
	pid := h.cmd.Process.Pid
	c = dialHost(t, h)
	cc = dialAs(t, h, "canary", addCanary(t, h))

	leaks := []string{canarySecret, "root:x:0", "PATH=", "balance"}
	checkClean := func(t *testing.T, r testhost.Result) {
		for _, leak := range leaks {
			if strings.Contains(r.Stdout+r.Stderr, leak) {
				t.Errorf("output leaks %q: %+v", leak, r)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := testhost.RunOn(t, c, "eval --session "+ids[tc.name]+" g()", "")
			if r.Status != 1 || r.Stdout != "" || strings.Count(r.Stderr, "\n") != 1 ||
				!strings.HasPrefix(r.Stderr, "error: restore failed: journal: ") || !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("%+v; want status 1 and one line error: restore failed: journal: ... naming %q", r, tc.want)
			}
			checkClean(t, r)
		})
	}
	for _, tc := range metaCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, cl := range []*gossh.Client{c, cc} {
				r := testhost.RunOn(t, cl, "eval --session "+ids[tc.name]+" g()", "")
				if r != (testhost.Result{Stderr: "error: no such session\n", Status: 1}) {
					t.Errorf("%+v; want no such session", r)
				}
			}
			if !strings.Contains(h.Log(), ids[tc.name]) {
				t.Errorf("host log does not name the skipped session %s", ids[tc.name])
			}
		})
	}
	r := testhost.RunOn(t, c, "eval --session "+live+" g()", "")
	if r.Status != 1 || !strings.Contains(r.Stderr, "classes/repl: not a directory (a symlink)") {
		t.Errorf("the swapped live session after a restart: %+v; want one error about classes/repl", r)
	}
	checkClean(t, r)

	if s := testhost.RunOn(t, cc, "sessions", ""); strings.Count(s.Stdout, "\n") != 1 || !strings.HasPrefix(s.Stdout, canary) {
		t.Errorf("canary's sessions: %+v; want only %s (no session handed over by a rewritten owner)", s, canary)
	}
	expectOn(t, cc, "eval --session "+canary+" import \"fmt\"; fmt.Println(secret, balance)", canarySecret+" 100\n")
	if got := testhost.FileBytes(t, history); got != "token := \""+canarySecret+"\"\n" {
		t.Errorf("canary's history changed: %q", got)
	}
	if h.cmd.ProcessState != nil || h.cmd.Process.Pid != pid || !testhost.Alive(pid) {
		t.Errorf("the host did not stay the same process")
	}
	expectOn(t, c, "eval import \"fmt\"; fmt.Println(\"still serving\")", "still serving\n")
}

// After 5 host crashes (SIGKILL) mid-script, the user can still run
// scripts: a throwaway session cut off by a crash never comes back as
// restorable and never counts against --max-sessions-per-user.
func TestScriptsAfterHostCrashesMidScript(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	for i := range 5 {
		h := startHostProc(t, root, "--max-sessions-per-user", "2")
		c := dialHost(t, h)
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		s.Stdin = strings.NewReader("import \"fmt\"\nfmt.Println(\"running\")\nfor {}\n")
		if err := s.Shell(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "running\n" {
			t.Fatalf("crash %d: script printed %q, %v; want running", i+1, line, err)
		}
		h.Kill()
	}
	h := startHostProc(t, root, "--max-sessions-per-user", "2")
	c := dialHost(t, h)
	if r := testhost.RunOn(t, c, "sessions", ""); r != (testhost.Result{}) {
		t.Errorf("sessions after the crashes: %+v; want none", r)
	}
	for i := range 3 {
		if r := testhost.RunOn(t, c, "", "import \"fmt\"\nfmt.Println(\"ok\")\n"); r != (testhost.Result{Stdout: "ok\n"}) {
			t.Errorf("script %d after 5 crashes: %+v; want ok", i+1, r)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*-*-*-*-*"))
	if len(dirs) != 0 {
		t.Errorf("session directories left: %q", dirs)
	}
}
