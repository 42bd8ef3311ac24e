package sshd_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

// Session lifecycle through the real server: attach, detach, takeover,
// kill, eviction, sessions, limits, history, restore after a restart.

// fakeClock is a settable clock for repl.Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const sessionTTL = 30 * time.Minute

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// detachedSession runs `new` as user and returns the uuid it printed.
func detachedSession(tb testing.TB, h *testhost.Host, user string) string {
	tb.Helper()
	r := h.Run(tb, user, "new", "")
	id := strings.TrimSpace(r.Stdout)
	if r.Status != 0 || !uuidPattern.MatchString(id) {
		tb.Fatalf("new: %+v", r)
	}
	return id
}

// expectRun runs an exec command as user and fails unless it exits 0 and
// prints want.
func expectRun(tb testing.TB, h *testhost.Host, user, cmd, want string) {
	tb.Helper()
	r := h.Run(tb, user, cmd, "")
	if r.Status != 0 || r.Stdout != want {
		tb.Fatalf("%s: %+v; want status 0 and %q", cmd, r, want)
	}
}

// runWithPTY runs cmd with a PTY, as `ssh -t` does, and returns what came on
// stdout and stderr and the exit status.
func runWithPTY(tb testing.TB, c *gossh.Client, cmd string) testhost.Result {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 40, 120, gossh.TerminalModes{}); err != nil {
		tb.Fatal(err)
	}
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr = &out, &errOut
	err = s.Run(cmd)
	r := testhost.Result{Stdout: out.String(), Stderr: errOut.String()}
	if ee, ok := err.(*gossh.ExitError); ok {
		r.Status = ee.ExitStatus()
	} else if err != nil {
		tb.Fatalf("%s: %v", cmd, err)
	}
	return r
}

// listSessions runs `sessions` as user: uuid -> its fields.
func listSessions(tb testing.TB, h *testhost.Host, user string) map[string][]string {
	tb.Helper()
	r := h.Run(tb, user, "sessions", "")
	if r.Status != 0 {
		tb.Fatalf("sessions: %+v", r)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 || !uuidPattern.MatchString(f[0]) {
			tb.Fatalf("sessions line %q; want: uuid state created last-used", line)
		}
		out[f[0]] = f
	}
	return out
}

// waitForState waits until `sessions` shows id in state (a disconnect reaches
// the server a moment after the client closes).
func waitForState(tb testing.TB, h *testhost.Host, user, id string, state repl.State) {
	tb.Helper()
	var got []string
	for range 100 { // bounded: 5 s
		if got = listSessions(tb, h, user)[id]; got != nil && got[1] == string(state) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("session %s: %v; want state %s", id, got, state)
}

// Define x and g, leave by Ctrl-D, by disconnecting, by a host restart, and
// come back each time by attach (PTY) and eval --session: g() is 42.
func TestReattachKeepsTheSession(t *testing.T) {
	root := t.TempDir()
	h := testhost.Start(t, testhost.Options{Root: root})
	term := h.Terminal(t, "alice", "")
	id := term.Expect(`session ([0-9a-f-]{36})\r\n`)[1]
	term.Expect("go> ")
	term.Send("x := 41\r")
	term.Expect("go> ")
	term.Send("func g() int { return x + 1 }\r")
	term.Expect("go> ")
	term.Send("\x04") // Ctrl-D at an empty prompt detaches
	term.Expect("detached; session " + id + " stays for 30m0s; attach with: ssh -t -p ")
	if got := term.Wait(); got != 0 {
		t.Errorf("exit status after Ctrl-D = %d; want 0", got)
	}
	waitForState(t, h, "alice", id, repl.StateDetached)
	expectRun(t, h, "alice", "eval --session "+id+" g()", "42\n")

	att := h.Terminal(t, "alice", "attach "+id)
	att.Expect("session " + id + "\r\n")
	att.Expect("go> ")
	att.Send("g()\r")
	att.Expect(`\r\n42\r\n`)
	att.Close() // disconnect without a word
	waitForState(t, h, "alice", id, repl.StateDetached)
	expectRun(t, h, "alice", "eval --session="+id+" g()", "42\n")

	h.Stop()
	h = testhost.Start(t, testhost.Options{Root: root})
	if got := listSessions(t, h, "alice")[id]; got == nil || got[1] != string(repl.StateRestorable) {
		t.Errorf("after restart: %v; want %s", got, repl.StateRestorable)
	}
	expectRun(t, h, "alice", "eval --session "+id+" g()", "42\n")
	h.Stop()
	h = testhost.Start(t, testhost.Options{Root: root})
	att = h.Terminal(t, "alice", "attach "+id)
	att.Expect("session " + id + "\r\n")
	att.Expect("go> ")
	att.Send("g()\r")
	att.Expect(`\r\n42\r\n`)
	att.Send("\x04")
	att.Wait()
}

// Every uuid that is not one of the user's sessions gets the same one line
// and status, whatever the command: nothing tells another user's session
// from one that never existed.
func TestNoSuchSessionIsTheSameForEveryBadUUID(t *testing.T) {
	clk := newFakeClock()
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{Now: clk.Now, SessionTTL: sessionTTL, NoSync: true}})
	evicted := detachedSession(t, h, "alice")
	clk.Add(sessionTTL)
	if n := h.Manager.EvictIdle(); n != 1 {
		t.Fatalf("evicted %d; want 1", n)
	}
	mine := detachedSession(t, h, "alice")
	bobs := detachedSession(t, h, "bob")
	killed := detachedSession(t, h, "alice")
	expectRun(t, h, "alice", "kill "+killed, "")
	quit := h.Terminal(t, "alice", "")
	quitID := quit.Expect(`session ([0-9a-f-]{36})\r\n`)[1]
	quit.Send(":quit\r")
	quit.Expect("session " + quitID + " ended")
	quit.Wait()

	c := h.Dial(t, "alice")
	ids := map[string]string{
		"bobs":      bobs,
		"made-up":   "0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b",
		"killed":    killed,
		"quit":      quitID,
		"evicted":   evicted,
		"malformed": "not-a-uuid",
		"traversal": "../" + mine,
		"uppercase": strings.ToUpper(mine),
	}
	for name, id := range ids {
		for _, cmd := range []string{"attach", "attach-pty", "eval", "kill"} {
			t.Run(name+"-"+cmd, func(t *testing.T) {
				var r testhost.Result
				switch cmd {
				case "attach":
					r = testhost.RunOn(t, c, "attach "+id, "1+1\n")
				case "attach-pty":
					r = runWithPTY(t, c, "attach "+id)
				case "eval":
					r = testhost.RunOn(t, c, "eval --session "+id+" 1+1", "")
				case "kill":
					r = testhost.RunOn(t, c, "kill "+id, "")
				}
				want := testhost.Result{Stderr: "error: no such session\n", Status: 1}
				if r != want {
					t.Errorf("got %+v; want %+v", r, want)
				}
			})
		}
	}
	// Bob's session and alice's own are untouched by all that.
	expectRun(t, h, "bob", "eval --session "+bobs+" 40+2", "42\n")
	expectRun(t, h, "alice", "eval --session "+mine+" 40+2", "42\n")
}

// Two terminals on one session: the newer takes over, the older is told why
// and closed; again with a third; a kill ends the last one, mid-cell.
func TestNewerAttachmentTakesOver(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{NoSync: true}})
	id := detachedSession(t, h, "alice")
	expectRun(t, h, "alice", "eval --session "+id+" x := 41", "")

	var terms []*testhost.Term
	for i := range 3 {
		term := h.Terminal(t, "alice", "attach "+id)
		term.Expect("go> ")
		if i > 0 {
			prev := terms[i-1]
			prev.Expect(repl.TakenOverMessage)
			if got := prev.Wait(); got != 0 {
				t.Errorf("attachment %d ended with %d; want 0", i-1, got)
			}
		}
		term.Send("x++\r")
		term.Send("x\r")
		term.Expect(fmt.Sprintf(`\r\n%d\r\n`, 42+i))
		terms = append(terms, term)
	}
	last := terms[2]
	last.Send(`import "fmt"` + "\r")
	last.Send(`fmt.Println("spinning"); for {}` + "\r") // a running cell does not keep a kill waiting
	last.Expect("\r\nspinning\r\n")
	expectRun(t, h, "alice", "kill "+id, "")
	last.Expect("session killed")
	last.Wait()
	if _, err := os.Stat(filepath.Join(h.Root, id)); !os.IsNotExist(err) {
		t.Errorf("killed session's directory: %v; want it gone", err)
	}
}

// Eviction after the TTL takes idle sessions, their interpreter and their
// directory, and never an attached one.
func TestEvictionThroughTheServer(t *testing.T) {
	clk := newFakeClock()
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{Now: clk.Now, SessionTTL: sessionTTL, NoSync: true}})
	idle := detachedSession(t, h, "alice")
	expectRun(t, h, "alice", "eval --session "+idle+" x := 41", "")
	term := h.Terminal(t, "alice", "")
	attached := term.Expect(`session ([0-9a-f-]{36})\r\n`)[1]
	term.Expect("go> ")
	term.Send("y := 1\r")
	term.Expect("go> ")

	clk.Add(sessionTTL)
	if n := h.Manager.EvictIdle(); n != 1 {
		t.Errorf("evicted %d; want 1 (the idle one)", n)
	}
	if _, err := os.Stat(filepath.Join(h.Root, idle)); !os.IsNotExist(err) {
		t.Errorf("evicted session's directory: %v; want it gone", err)
	}
	r := h.Run(t, "alice", "eval --session "+idle+" x", "")
	if want := (testhost.Result{Stderr: "error: no such session\n", Status: 1}); r != want {
		t.Errorf("evicted session: %+v; want %+v", r, want)
	}
	term.Send("y\r")
	term.Expect(`\r\n1\r\n`)
	term.Send("\x04")
	term.Wait()
	waitForState(t, h, "alice", attached, repl.StateDetached)
	clk.Add(sessionTTL)
	if n := h.Manager.EvictIdle(); n != 1 {
		t.Errorf("evicted %d a TTL after detaching; want 1", n)
	}
	if got := listSessions(t, h, "alice"); len(got) != 0 {
		t.Errorf("sessions after eviction: %v; want none", got)
	}
}

// With process isolation, eviction and kill end the session's worker
// process (even one running a cell), besides removing the directory.
func TestEvictionAndKillEndTheWorker(t *testing.T) {
	clk := newFakeClock()
	h := testhost.Start(t, testhost.Options{Process: true, Repl: repl.Config{Now: clk.Now, SessionTTL: sessionTTL, NoSync: true}})
	idle := detachedSession(t, h, "alice")
	expectRun(t, h, "alice", "eval --session "+idle+" x := 41", "")
	idlePID := workerOf(t, h.Root, idle)

	busy := detachedSession(t, h, "alice")
	c := h.Dial(t, "alice")
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("eval --session " + busy + " import \"fmt\"\nfmt.Println(\"spinning\")\nfor {}"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "spinning\n" {
		t.Fatalf("running cell printed %q, %v; want spinning", line, err)
	}
	busyPID := workerOf(t, h.Root, busy)

	clk.Add(sessionTTL)
	if n := h.Manager.EvictIdle(); n != 1 {
		t.Errorf("evicted %d; want 1 (the one not running a cell)", n)
	}
	expectRun(t, h, "alice", "kill "+busy, "")
	if err := s.Wait(); err == nil {
		t.Error("the killed session's running eval exited 0; want a failure")
	}
	for name, pid := range map[string]int{"evicted": idlePID, "killed": busyPID} {
		if state := processState(pid); state != "" {
			t.Errorf("%s session's worker %d: state %q; want it gone", name, pid, state)
		}
	}
	for _, id := range []string{idle, busy} {
		if _, err := os.Stat(filepath.Join(h.Root, id)); !os.IsNotExist(err) {
			t.Errorf("session directory %s: %v; want it gone", id, err)
		}
	}
}

// workerOf finds the worker process of session id: the one whose working
// directory is the session's files/.
func workerOf(tb testing.TB, root, id string) int {
	tb.Helper()
	want := filepath.Join(root, id, "files")
	procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
	for _, p := range procs {
		if cwd, err := os.Readlink(p); err == nil && cwd == want {
			pid, _ := strconv.Atoi(strings.Split(p, "/")[2])
			return pid
		}
	}
	tb.Fatalf("no worker process works in %s", want)
	return 0
}

// processState is the state letter of process pid (R, S, Z, ...), or ""
// when there is no such process.
func processState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, after, _ := strings.Cut(string(b), ") ")
	state, _, _ := strings.Cut(after, " ")
	return state
}

// sessions lists uuid, state, created and last used; the state follows
// the session: live while attached, detached, restorable after a restart.
func TestSessionsListsStateAndTimes(t *testing.T) {
	clk := newFakeClock()
	root := t.TempDir()
	opts := testhost.Options{Root: root, Repl: repl.Config{Now: clk.Now, NoSync: true}}
	h := testhost.Start(t, opts)
	created := clk.Now().UTC().Format(time.RFC3339)
	detached := detachedSession(t, h, "alice")
	clk.Add(time.Minute)
	expectRun(t, h, "alice", "eval --session "+detached+" 1", "1\n")
	used := clk.Now().UTC().Format(time.RFC3339)
	term := h.Terminal(t, "alice", "")
	live := term.Expect(`session ([0-9a-f-]{36})\r\n`)[1]
	term.Expect("go> ")

	got := listSessions(t, h, "alice")
	want := map[string][]string{
		detached: {detached, "detached", created, used},
		live:     {live, "live", used, used},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sessions = %v; want %v", got, want)
	}
	if other := listSessions(t, h, "bob"); len(other) != 0 {
		t.Errorf("bob's sessions = %v; want none", other)
	}
	term.Send("\x04")
	term.Wait()
	h.Stop()
	h = testhost.Start(t, opts)
	for id, f := range listSessions(t, h, "alice") {
		if f[1] != string(repl.StateRestorable) {
			t.Errorf("%s after restart: %v; want restorable", id, f)
		}
	}
}

// Over the cap, a new session is refused with one clear line.
func TestMaxSessionsPerUserRefusesClearly(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{MaxSessionsPerUser: 2, NoSync: true}})
	detachedSession(t, h, "alice")
	detachedSession(t, h, "alice")
	want := testhost.Result{Stderr: "error: too many sessions: 2 of 2 in use; end one with kill UUID\n", Status: 1}
	if r := h.Run(t, "alice", "new", ""); r != want {
		t.Errorf("new: %+v; want %+v", r, want)
	}
	if r := runWithPTY(t, h.Dial(t, "alice"), ""); r != want {
		t.Errorf("interactive login: %+v; want %+v", r, want)
	}
	detachedSession(t, h, "bob") // bob has his own cap
}

// History is kept per user across logins in ROOT/users/NAME/history, and
// stays bounded: a file past the limit is cut back at the next login.
func TestHistoryIsKeptAndBounded(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{NoSync: true}})
	file := filepath.Join(h.Root, "users", "alice", "history")
	var old strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&old, "old%d\n", i)
	}
	if err := os.WriteFile(file, []byte(old.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	term := h.Terminal(t, "alice", "")
	term.Expect("go> ")
	term.Send("40 + 2\r")
	term.Expect(`\r\n42\r\n`)
	term.Send(":quit\r")
	term.Wait()

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 1001 || lines[0] != "old500" || lines[1000] != "40 + 2" {
		t.Errorf("history has %d lines, %q ... %q; want 1001, old500 ... 40 + 2", len(lines), lines[0], lines[len(lines)-1])
	}

	term = h.Terminal(t, "alice", "") // a new login, a new session
	term.Expect("go> ")
	term.Send("\x1b[A") // up: the last cell of the last login
	term.Expect("40 \\+ 2")
	term.Send("\r")
	term.Expect(`\r\n42\r\n`)
	term.Send(":quit\r")
	term.Wait()
}
