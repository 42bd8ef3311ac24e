package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/admin"
	"github.com/replhost/replhost/internal/testhost"
)

var metricsRE = regexp.MustCompile(`msg="metrics listening" addr=([0-9.:]+)`)

// scrapeMetrics fetches path from the host's metrics listener.
func scrapeMetrics(t *testing.T, h *hostProc, path string) (int, string) {
	t.Helper()
	m := metricsRE.FindStringSubmatch(h.Log())
	if m == nil {
		t.Fatalf("no metrics listener in the log: %s", h.Log())
	}
	resp, err := http.Get("http://" + m[1] + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func wantMetrics(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, "\n"+w+"\n") {
			t.Errorf("/metrics lacks %q", w)
		}
	}
}

// /metrics of a real host after a scripted session shows that session's
// login, cells and end; /healthz and /readyz answer. After a restart, the
// session's restore is one Replay call into its worker for its five cells,
// which are counted as replayed, not as cells.
func TestMetricsAfterAScriptAndARestore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root, "--metrics-listen", "127.0.0.1:0")
	c := dialHost(t, h)
	if r := testhost.RunOn(t, c, "", "import \"fmt\"\nfmt.Println(1)\nundefinedThing()\n"); r.Status != 1 || r.Stdout != "1\n" {
		t.Fatalf("script: %+v", r)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := scrapeMetrics(t, h, path); code != 200 {
			t.Errorf("%s = %d; want 200", path, code)
		}
	}
	_, body := scrapeMetrics(t, h, "/metrics")
	wantMetrics(t, body,
		`replhost_logins_total 1`,
		`replhost_cells_total{outcome="error"} 1`,
		`replhost_session_events_total{event="created"} 1`,
		`replhost_session_events_total{event="killed"} 1`,
		`replhost_worker_starts_total{result="ok"} 1`,
		`replhost_evaluator_calls_total{call="eval"} 1`,
	)
	if !strings.Contains(body, "\nreplhost_pool_idle_workers ") || !strings.Contains(body, "\nreplhost_worker_wait_seconds_count 1\n") {
		t.Errorf("/metrics lacks the pool's size or wait")
	}

	id := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	for _, cell := range []string{"a := 1", "b := 2", "c := a + b", "func f() int { return c * 2 }", "d := f()"} {
		expectOn(t, c, "eval --session "+id+" "+cell, "")
	}
	c.Close()
	h.Stop(t)

	h = startHostProc(t, root, "--metrics-listen", "127.0.0.1:0")
	c = dialHost(t, h)
	expectOn(t, c, "eval --session "+id+" d", "6\n")
	_, body = scrapeMetrics(t, h, "/metrics")
	wantMetrics(t, body,
		`replhost_evaluator_calls_total{call="replay"} 1`,
		`replhost_evaluator_calls_total{call="eval"} 1`,
		`replhost_replayed_cells_total 5`,
		`replhost_restores_total{outcome="ok"} 1`,
		`replhost_cells_total{outcome="ok"} 1`,
		`replhost_sessions{state="detached"} 1`,
	)
}

func replhostCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(replhostBin, args...).CombinedOutput()
	return string(out), err
}

// Operators: `replhost sessions --all` and `replhost kill` on the host
// reach the running host through ROOT/admin.sock (mode 0600); an admin
// user does the same over SSH, a non-admin gets "no such command"; `user
// rm` ends the user's sessions.
func TestAdminCommandsOnTheHostAndOverSSH(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	opsKey, opsPub := testhost.NewUserKey(t, t.TempDir(), "ops")
	bobKey, bobPub := testhost.NewUserKey(t, t.TempDir(), "bob")
	if out, err := replhostCmd(t, "user", "add", "ops", opsPub, "--root", root, "--admin"); err != nil || !strings.Contains(out, "ops (admin)") {
		t.Fatalf("user add --admin: %v: %s", err, out)
	}
	if out, err := replhostCmd(t, "user", "add", "bob", bobPub, "--root", root); err != nil {
		t.Fatalf("user add: %v: %s", err, out)
	}
	fi, err := os.Stat(admin.SocketPath(root))
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket: %v, %v; want a socket of mode 0600", fi.Mode(), err)
	}

	tester := dialHost(t, h)
	ids := make([]string, 2)
	for i := range ids {
		ids[i] = strings.TrimSpace(testhost.RunOn(t, tester, "new", "").Stdout)
	}
	bob := dialAs(t, h, "bob", bobKey)
	bobs := strings.TrimSpace(testhost.RunOn(t, bob, "new", "").Stdout)

	out, err := replhostCmd(t, "sessions", "--all", "--root", root)
	if err != nil || !strings.Contains(out, ids[0]+" tester detached ") || !strings.Contains(out, bobs+" bob detached ") {
		t.Errorf("replhost sessions --all: %v\n%s\nwant tester's and bob's sessions", err, out)
	}
	if r := testhost.RunOn(t, bob, "sessions --all", ""); r.Status != 2 || r.Stderr != "error: no such command\n" || r.Stdout != "" {
		t.Errorf("non-admin sessions --all: %+v; want status 2 and no such command", r)
	}
	if r := testhost.RunOn(t, bob, "kill "+ids[0], ""); r.Status != 1 || !strings.Contains(r.Stderr, "no such session") {
		t.Errorf("non-admin kill of another's session: %+v; want no such session", r)
	}
	opsC := dialAs(t, h, "ops", opsKey)
	if r := testhost.RunOn(t, opsC, "sessions --all", ""); r.Status != 0 || !strings.Contains(r.Stdout, ids[0]+" tester ") {
		t.Errorf("admin sessions --all: %+v; want tester's session", r)
	}
	if r := testhost.RunOn(t, opsC, "kill "+ids[0], ""); r.Status != 0 {
		t.Errorf("admin kill of tester's session: %+v", r)
	}
	if out, err := replhostCmd(t, "kill", ids[1], "--root", root); err != nil || !strings.Contains(out, "killed session "+ids[1]) {
		t.Errorf("replhost kill: %v: %s", err, out)
	}
	if out, err := replhostCmd(t, "kill", ids[1], "--root", root); err == nil || !strings.Contains(out, "no such session") {
		t.Errorf("replhost kill of a killed session: %v: %s; want no such session", err, out)
	}
	if r := testhost.RunOn(t, tester, "sessions", ""); r.Status != 0 || r.Stdout != "" {
		t.Errorf("tester's sessions after the kills: %+v; want none", r)
	}
	if out, err := replhostCmd(t, "user", "rm", "bob", "--root", root); err != nil || !strings.Contains(out, "1 session(s) ended") {
		t.Errorf("user rm bob: %v: %s", err, out)
	}
	if out, _ := replhostCmd(t, "sessions", "--all", "--root", root); strings.Contains(out, bobs) {
		t.Errorf("bob's session outlived user rm:\n%s", out)
	}
	h.Stop(t)
	if out, err := replhostCmd(t, "sessions", "--all", "--root", root); err == nil || !strings.Contains(out, "no host is running") {
		t.Errorf("sessions --all with no host: %v: %s; want an error saying so", err, out)
	}
}

// With no host running, user rm removes the user's sessions from the root
// itself, and a host started later does not bring them back.
func TestUserRmWithoutAHostRemovesItsSessions(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	c := dialHost(t, h)
	id := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	c.Close()
	h.Stop(t)
	if out, err := replhostCmd(t, "user", "rm", "--root", root, "tester"); err != nil || !strings.Contains(out, "1 session(s) ended") {
		t.Fatalf("user rm: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, id)); !os.IsNotExist(err) {
		t.Errorf("session directory after user rm: %v; want it gone", err)
	}
}

// [users.NAME] of the config file: that user's session cap, memory cap and
// disk quota, through real workers; another user keeps the host's.
func TestPerUserLimitsFromTheConfigFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	cfg := filepath.Join(t.TempDir(), "replhost.toml")
	if err := os.WriteFile(cfg, []byte("[users.tester]\nmax-sessions = 2\nmemory = \"128MiB\"\ndisk = \"8MiB\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHostProc(t, root, "--config", cfg)
	c := dialHost(t, h)
	id := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	id2 := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	if r := testhost.RunOn(t, c, "new", ""); r.Status != 1 || !strings.Contains(r.Stderr, "too many sessions: 2 of 2") {
		t.Errorf("third session: %+v; want too many sessions: 2 of 2", r)
	}
	r := testhost.RunOn(t, c, "eval --session "+id+` import "os"; os.WriteFile("big", make([]byte, 16<<20), 0o644)`, "")
	if !strings.Contains(r.Stdout+r.Stderr, "file too large") {
		t.Errorf("16 MiB file under an 8 MiB quota: %+v; want file too large", r)
	}
	// Another session: the first is at its disk quota now (the file's
	// first 8 MiB stay), which stops its next cell.
	r = testhost.RunOn(t, c, "eval --session "+id2+" var s []int\nchunk := make([]int, 1<<16)\nfor {\n\ts = append(s, chunk...)\n}", "")
	if !strings.Contains(r.Stderr, "killed at memory cap 128MiB") {
		t.Errorf("a cell past 128 MiB: %+v; want killed at memory cap 128MiB", r)
	}

	bobKey, bobPub := testhost.NewUserKey(t, t.TempDir(), "bob")
	if out, err := replhostCmd(t, "user", "add", "bob", bobPub, "--root", root); err != nil {
		t.Fatalf("user add: %v: %s", err, out)
	}
	bob := dialAs(t, h, "bob", bobKey)
	bid := strings.TrimSpace(testhost.RunOn(t, bob, "new", "").Stdout)
	r = testhost.RunOn(t, bob, "eval --session "+bid+` import "os"; os.WriteFile("big", make([]byte, 16<<20), 0o644)`, "")
	if r.Status != 0 || r.Stdout != "<nil>\n" {
		t.Errorf("bob's 16 MiB file under the host's 1 GiB quota: %+v; want <nil>", r)
	}
}

// waitLogCount waits (bounded) until the host has logged text n times.
func waitLogCount(tb testing.TB, h *hostProc, text string, n int) {
	tb.Helper()
	for i := 0; strings.Count(h.Log(), text) < n; i++ {
		if i == 400 {
			tb.Fatalf("host never logged %q %d times:\n%s", text, n, h.Log())
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// SIGHUP reads the config file again: a raised per-user session cap takes
// effect at once; a broken file is refused with one logged line and the
// host keeps the settings it had.
func TestSIGHUPReloadsTheConfigFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	cfg := filepath.Join(t.TempDir(), "replhost.toml")
	write := func(text string) {
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[users.tester]\nmax-sessions = 1\n")
	h := startHostProc(t, root, "--isolation", "inproc", "--config", cfg)
	c := dialHost(t, h)
	newSession := func() testhost.Result { return testhost.RunOn(t, c, "new", "") }
	if r := newSession(); r.Status != 0 {
		t.Fatalf("first session: %+v", r)
	}
	if r := newSession(); !strings.Contains(r.Stderr, "too many sessions: 1 of 1") {
		t.Fatalf("second session under a cap of 1: %+v", r)
	}
	write("[users.tester]\nmax-sessions = oops\n")
	h.cmd.Process.Signal(syscall.SIGHUP)
	waitLogCount(t, h, `part="config file"`, 1)
	if !strings.Contains(h.Log(), `msg="reload failed; kept as it was" part="config file"`) {
		t.Errorf("a broken config file was not refused:\n%s", h.Log())
	}
	if r := newSession(); !strings.Contains(r.Stderr, "too many sessions: 1 of 1") {
		t.Errorf("after a refused reload: %+v; want the cap of 1 kept", r)
	}
	write("[users.tester]\nmax-sessions = 3\n")
	h.cmd.Process.Signal(syscall.SIGHUP)
	waitLogCount(t, h, `msg=reloaded part="config file"`, 1)
	for i := 0; i < 2; i++ {
		if r := newSession(); r.Status != 0 {
			t.Errorf("session %d under the reloaded cap of 3: %+v", i+2, r)
		}
	}
	if r := newSession(); !strings.Contains(r.Stderr, "too many sessions: 3 of 3") {
		t.Errorf("fourth session: %+v; want too many sessions: 3 of 3", r)
	}

	// The log level is a setting like the others: at debug, a login's
	// connection is logged; back at info, it is not.
	write("log-level = \"debug\"\n[users.tester]\nmax-sessions = 3\n")
	h.cmd.Process.Signal(syscall.SIGHUP)
	waitLogCount(t, h, `msg=reloaded part="config file"`, 2)
	before := strings.Count(h.Log(), "level=DEBUG")
	testhost.RunOn(t, dialHost(t, h), "help", "")
	if after := strings.Count(h.Log(), "level=DEBUG"); after == before {
		t.Errorf("no debug line after a reload to log-level debug:\n%s", h.Log())
	}
}
