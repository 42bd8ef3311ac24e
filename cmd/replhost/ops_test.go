package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/replhost/replhost/admin"
	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
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

// newUserKey makes a key pair for a user: the signer and an authorized_keys
// file of its public key.
func newUserKey(t *testing.T) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "key.pub")
	if err := os.WriteFile(p, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	return signer, p
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
	opsKey, opsPub := newUserKey(t)
	bobKey, bobPub := newUserKey(t)
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
