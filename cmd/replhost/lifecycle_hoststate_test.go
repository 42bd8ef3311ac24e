package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	gossh "golang.org/x/crypto/ssh"
)

// sessionWorkers lists the live workers of host working in session dir.
func sessionWorkers(host int, dir string) []int {
	var pids []int
	for _, pid := range workerPIDs(host) {
		cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
		if err == nil && strings.HasPrefix(cwd, dir) && testhost.Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// plantCells appends cells to the journal of session id (host stopped), as
// a previous host would have written them.
func plantCells(tb testing.TB, root, id string, cells ...string) {
	tb.Helper()
	j := repl.OpenJournal(filepath.Join(root, id), false)
	defer j.Close()
	for _, c := range cells {
		if err := j.Append(c); err != nil {
			tb.Fatal(err)
		}
	}
}

// waitFor polls cond (bounded: a failure, not a hang, if it never holds).
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

// startEval starts "eval --session id code" and returns a channel that
// gets its end.
func startEval(tb testing.TB, c *gossh.Client, id, code string) <-chan error {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	if err := s.Start("eval --session " + id + " " + code); err != nil {
		tb.Fatal(err)
	}
	go func() { done <- s.Wait(); s.Close() }()
	return done
}

// kill UUID ends the session's worker before it returns, whether the
// session runs a looping cell or is being restored (300 cells, then one
// that loops): it does not wait for the cell or the restore.
func TestKillEndsTheWorkerOfALoopingCellOrARestore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	c := dialHost(t, h)
	looping := newWithG(t, c)
	restoring := newWithG(t, c)
	h.Stop(t)
	cells := make([]string, 300)
	for i := range cells {
		cells[i] = fmt.Sprintf("v%d := %d", i, i)
	}
	plantCells(t, root, restoring, append(cells, "for {}")...)

	h = startHostProc(t, root)
	c = dialHost(t, h)
	host := h.cmd.Process.Pid
	for _, tc := range []struct{ name, id, code string }{
		{"looping-cell", looping, "for {}"},
		{"mid-restore", restoring, "g()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, tc.id)
			done := startEval(t, c, tc.id, tc.code)
			waitFor(t, "the session's worker", func() bool { return len(sessionWorkers(host, dir)) > 0 })
			pids := sessionWorkers(host, dir)
			if r := testhost.RunOn(t, c, "kill "+tc.id, ""); r != (testhost.Result{}) {
				t.Fatalf("kill: %+v", r)
			}
			for _, pid := range pids {
				if testhost.Alive(pid) {
					t.Errorf("worker %d alive after kill returned", pid)
				}
			}
			if err := <-done; err == nil {
				t.Errorf("the eval of the killed session exited 0")
			}
			if r := testhost.RunOn(t, c, "eval --session "+tc.id+" 1", ""); r.Stderr != "error: no such session\n" {
				t.Errorf("after kill: %+v; want no such session", r)
			}
		})
	}
}

// A restore at a terminal is interrupted by Ctrl-C, and with --eval-timeout
// each replayed cell is bounded; neither cuts the journal: the prompt
// comes, :journal shows every cell, and once the looping cell is dropped
// the session restores.
func TestRestoreAtATerminalIsInterruptibleAndBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		ctrlC bool
		want  string
	}{
		// Before or in the looping cell: without Ctrl-C it would never end.
		{"ctrl-c", nil, true, `restore interrupted( at cell \d of 3)?: `},
		{"eval-timeout", []string{"--eval-timeout", "1s"}, false, `restore timed out at cell 3 of 3: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			h := startHostProc(t, root, tc.args...)
			id := newWithG(t, dialHost(t, h))
			h.Stop(t)
			plantCells(t, root, id, "for {}")
			h = startHostProc(t, root, tc.args...)
			term := testhost.OpenTerm(t, dialHost(t, h), "attach "+id)
			term.Expect("session " + id + "\r\n")
			notice := tc.want + `[^\r\n]*the journal is kept whole[^\r\n]*\r\n`
			if tc.ctrlC {
				// Again until it lands: one typed before the restore began
				// goes nowhere, as for a user, who presses it again.
				for i := 0; ; i++ {
					term.Send("\x03")
					if _, ok := term.ExpectTimeout(notice, 200*time.Millisecond); ok {
						break
					}
					if i == 100 {
						t.Fatal("Ctrl-C did not interrupt the restore")
					}
				}
			} else {
				term.Expect(notice)
			}
			term.Expect("go> ")
			term.Send(":journal\r")
			term.Expect(`journal: 3 cells, [^\r\n]*\r\n  1  x := 41\r\n  2  func g\(\) int \{ return x \+ 1 \}\r\n  3  for \{\}\r\n`)
			term.Send(":drop 3\r")
			term.Expect(`dropped cell 3 \(for \{\}\) from the journal`)
			term.Send("g()\r")
			term.Expect(`\r\n42\r\n`)
			term.Send("\x04")
			term.Wait()
		})
	}
}

// A session the last release left (unsealed session.json, one journal file
// per cell, no ROOT/session.key) restores on the upgrade: its journal is
// converted to the segment and its session.json sealed.
func TestLastReleasesSessionRestores(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root)
	h.Stop(t)
	if err := os.Remove(filepath.Join(root, "session.key")); err != nil {
		t.Fatal(err)
	}
	id := "0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b"
	files := map[string]string{
		"session.json":           `{"id":"` + id + `","owner":"tester","created":"2026-01-02T03:04:05Z","last_used":"2026-01-02T03:04:05Z","state":"detached"}`,
		"classes/repl/000001.go": "x := 41",
		"classes/repl/000002.go": "func g() int { return x + 1 }",
	}
	for _, sub := range []string{"classes/src", "files", "archives"} {
		if err := os.MkdirAll(filepath.Join(root, id, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		p := filepath.Join(root, id, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h = startHostProc(t, root)
	c := dialHost(t, h)
	expectRestorable(t, c, id)
	expectOn(t, c, "eval --session "+id+" g()", "42\n")
	entries, _ := os.ReadDir(filepath.Join(root, id, "classes", "repl"))
	if len(entries) != 1 || entries[0].Name() != "journal.seg" {
		t.Errorf("classes/repl after the upgrade: %v; want journal.seg alone", entries)
	}
	if b := testhost.FileBytes(t, filepath.Join(root, id, "session.json")); !strings.Contains(b, `"seal"`) {
		t.Errorf("session.json not sealed on the upgrade: %s", b)
	}
	h.Stop(t)
	h = startHostProc(t, root)
	expectOn(t, dialHost(t, h), "eval --session "+id+" g() + 1", "43\n")
}
