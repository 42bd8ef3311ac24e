package repl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
)

// failingReplay is an in-process interpreter whose Replay fails at cell
// at with err (as a crashed or misbehaving worker would) while armed.
type failingReplay struct {
	repl.Evaluator
	at  int
	err func() error
}

func (f failingReplay) Replay(ctx context.Context, cells []string) (int, error) {
	for i, c := range cells {
		if i == f.at && f.err != nil {
			return i, f.err()
		}
		if err := f.Eval(ctx, c, false); err != nil {
			return i, err
		}
	}
	return len(cells), nil
}

// A restore that stops for a reason other than the cell's own failure (the
// worker crashed or broke the protocol, an interrupt, a timeout) never cuts
// the journal: the session reports it, stays restorable, and restores whole
// once the cause is gone. Only an evaluation error cuts it, and the cells
// cut off are kept aside, listed, and can be put back.
func TestRestoreCutsOnlyAtACellsOwnError(t *testing.T) {
	cells := []string{"x := 41", "func g() int { return x + 1 }", `y := "later"`}
	for _, tc := range []struct {
		name string
		err  func() error
		cuts bool
	}{
		{"crash", func() error { return &sandbox.CrashError{Reason: "signal: killed"} }, false},
		{"protocol-error", func() error {
			return fmt.Errorf("sandbox: worker replied 'x': %w", &sandbox.CrashError{Reason: "protocol error"})
		}, false},
		{"interrupted", func() error { return context.Canceled }, false},
		{"timed-out", func() error { return context.DeadlineExceeded }, false},
		{"protocol-error-bare", func() error { return fmt.Errorf("replay: %w", sandbox.ErrProtocol) }, false},
		{"plain-error", func() error { return errors.New("sandbox: worker reply: bad json") }, false},
		{"eval-error", func() error { return &sandbox.EvalError{Line: 1, Col: 1, Msg: "undefined: greet"} }, true},
		{"exit", func() error { return &sandbox.ExitError{Code: 3} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, clk := t.TempDir(), newClock()
			var mu sync.Mutex
			armed := true
			inner := repl.InProcess(sandbox.NewAllowlist(nil))
			cfg := repl.Config{Root: root, NoSync: true, Now: clk.Now,
				NewEvaluator: func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
					ev, err := inner(ctx, spec)
					mu.Lock()
					defer mu.Unlock()
					f := failingReplay{Evaluator: ev, at: 1}
					if armed {
						f.err = tc.err
					}
					return f, err
				}}
			m1, err := repl.NewManager(cfg)
			must(t, err)
			mu.Lock()
			armed = false
			mu.Unlock()
			s, err := m1.Create(context.Background(), "alice")
			must(t, err)
			eval(t, s, cells...)
			id := s.ID()
			m1.Release(s)
			m1.Shutdown(context.Background())
			mu.Lock()
			armed = true
			mu.Unlock()

			m2, err := repl.NewManager(cfg)
			must(t, err)
			defer m2.Shutdown(context.Background())
			s, err = m2.Acquire("alice", id)
			must(t, err)
			defer m2.Release(s)
			var notice bytes.Buffer
			err = s.Load(context.Background(), &notice)
			if tc.cuts {
				if err != nil {
					t.Fatalf("Load: %v; want the session restored up to cell 2", err)
				}
				if !strings.HasPrefix(notice.String(), "restore stopped at cell 2 of 3 (func g() int { return x + 1 }): ") ||
					!strings.Contains(notice.String(), "cells 2-3 dropped") || !strings.Contains(notice.String(), ":journal restore") {
					t.Errorf("notice = %q", notice.String())
				}
				if got := cellsOf(t, s.Dir()); !reflect.DeepEqual(got, cells[:1]) {
					t.Errorf("journal = %q; want %q", got, cells[:1])
				}
				var out bytes.Buffer
				if err := s.RunCells(context.Background(), ":journal\n:journal restore\n", false, &out, &out); err != nil {
					t.Fatalf(":journal: %v (%s)", err, out.String())
				}
				for _, want := range []string{"journal: 1 cell,", "  1  x := 41\n", "cut off by a restore, in classes/repl/cut-", ": 2 cells", "  1  func g() int { return x + 1 }\n", "  2  y := \"later\"\n", "2 cells of cut-"} {
					if !strings.Contains(out.String(), want) {
						t.Errorf(":journal printed %q; want it to hold %q", out.String(), want)
					}
				}
				if got := cellsOf(t, s.Dir()); !reflect.DeepEqual(got, cells) {
					t.Errorf("journal after :journal restore = %q; want %q", got, cells)
				}
				return
			}
			var re *repl.RestoreError
			if !errors.As(err, &re) || re.Cell != 2 || re.Cells != 3 || !strings.Contains(err.Error(), "the journal is kept whole") {
				t.Fatalf("Load: %v; want a RestoreError at cell 2 of 3 that keeps the journal", err)
			}
			if got := cellsOf(t, s.Dir()); !reflect.DeepEqual(got, cells) {
				t.Errorf("journal = %q; want it whole %q", got, cells)
			}
			if m, _ := filepath.Glob(filepath.Join(s.Dir(), "classes/repl/cut-*")); len(m) != 0 {
				t.Errorf("cut files %v; want none", m)
			}
			mu.Lock()
			armed = false // the cause is gone: the next use restores it whole
			mu.Unlock()
			notice.Reset()
			if err := s.Load(context.Background(), &notice); err != nil || notice.String() != "restored 3 cells\n" {
				t.Errorf("second Load: %v, %q; want restored 3 cells", err, notice.String())
			}
			if got := eval(t, s, "g()"); got != "42\n" {
				t.Errorf("g() = %q; want 42", got)
			}
		})
	}
}

// blockingReplay is an evaluator whose restore never ends by itself (a
// looping cell that ignores interrupts), only when it is closed.
type blockingReplay struct {
	repl.Evaluator
	started chan struct{}
	closed  chan struct{}
	once    *sync.Once
}

func (b blockingReplay) Replay(ctx context.Context, cells []string) (int, error) {
	close(b.started)
	<-b.closed
	return 0, sandbox.ErrClosed
}

func (b blockingReplay) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.Evaluator.Close()
}

// Kill mid-restore ends the restoring evaluator itself: it does not wait
// for the restore (which here would never end otherwise).
func TestKillDuringRestoreEndsTheEvaluator(t *testing.T) {
	root, clk := t.TempDir(), newClock()
	inner := repl.InProcess(sandbox.NewAllowlist(nil))
	var mu sync.Mutex
	var last *blockingReplay
	block := false
	cfg := repl.Config{Root: root, NoSync: true, Now: clk.Now,
		NewEvaluator: func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
			ev, err := inner(ctx, spec)
			mu.Lock()
			defer mu.Unlock()
			if !block {
				return ev, err
			}
			last = &blockingReplay{Evaluator: ev, started: make(chan struct{}), closed: make(chan struct{}), once: new(sync.Once)}
			return *last, err
		}}
	m1, err := repl.NewManager(cfg)
	must(t, err)
	id := newSessionWithG(t, m1)
	m1.Shutdown(context.Background())

	mu.Lock()
	block = true
	mu.Unlock()
	m2, err := repl.NewManager(cfg)
	must(t, err)
	defer m2.Shutdown(context.Background())
	s, err := m2.Acquire("alice", id)
	must(t, err)
	loaded := make(chan error, 1)
	go func() { loaded <- s.Load(context.Background(), &bytes.Buffer{}) }()
	mu.Lock()
	for last == nil {
		mu.Unlock()
		mu.Lock()
	}
	b := *last
	mu.Unlock()
	<-b.started
	if err := m2.Kill("alice", id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.closed:
	default:
		t.Errorf("Kill returned with the restoring evaluator still open")
	}
	if err := <-loaded; err == nil {
		t.Errorf("Load after Kill: nil; want an error")
	}
	m2.Release(s)
	if exists(filepath.Join(root, id)) {
		t.Errorf("session directory left after Kill")
	}
}

// Throwaway sessions (scripts, one-shot eval) are marked before their code
// runs: a host that dies meanwhile leaves them on disk, and the next host
// removes them, never lists them, never counts them against the cap.
func TestEphemeralSessionsDoNotOutliveACrash(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	keep := newSessionWithG(t, newManager(t, root, clk, evs))
	for range 5 {
		m, err := repl.NewManager(repl.Config{Root: root, NoSync: true, Now: clk.Now, MaxSessionsPerUser: 2, NewEvaluator: evs.New()})
		must(t, err)
		s, err := m.CreateEphemeral(context.Background(), "alice")
		if err != nil {
			t.Fatalf("script session after crashes: %v", err)
		}
		eval(t, s, "z := 1")
		// The host dies here: no Release, no Kill, no Shutdown.
	}
	m := newManager(t, root, clk, evs)
	if got := m.List("alice"); len(got) != 1 || got[0].ID != keep {
		t.Errorf("alice's sessions after the crashes: %+v; want only %s", got, keep)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*-*-*-*-*"))
	if len(dirs) != 1 {
		t.Errorf("root holds session directories %q; want the kept session's alone", dirs)
	}
}

// Meta-commands work on lines of their own in a script; :quit ends it.
func TestMetaCommandsInScripts(t *testing.T) {
	m := newManager(t, t.TempDir(), newClock(), &evaluators{})
	s, err := m.Create(context.Background(), "alice")
	must(t, err)
	defer m.Release(s)
	must(t, os.WriteFile(filepath.Join(s.Dir(), "files", "lib.go"), []byte("func twice(n int) int { return 2 * n }\n"), 0o600))
	script := "import \"fmt\"\n:journal\nx := 1\n:drop 2\n:load lib.go\ns := `\n:not a command, inside a raw string\n`\nfmt.Println(twice(x), len(s) > 0)\n:quit\nfmt.Println(\"not reached\")\n"
	var out, errOut bytes.Buffer
	if code := s.RunScript(context.Background(), script, &out, &errOut); code != 0 {
		t.Fatalf("status %d, stderr %q", code, errOut.String())
	}
	want := "journal: 1 cell, replayed in this order by a restore (:drop N takes one out)\n" +
		"  1  import \"fmt\"\n" +
		"dropped cell 2 (x := 1) from the journal; the live interpreter is untouched (a later :reload or restore runs without it)\n" +
		"2 true\n" +
		"session " + s.ID() + " ended\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if _, err := m.Acquire("alice", s.ID()); err != repl.ErrNoSuchSession {
		t.Errorf("after :quit: %v; want no such session", err)
	}
}

// A failing meta-command in a script stops it with one error line naming
// the script's line; a failing cell after a meta-command names its line.
func TestScriptErrorsNameTheirLine(t *testing.T) {
	m := newManager(t, t.TempDir(), newClock(), &evaluators{})
	s, err := m.Create(context.Background(), "alice")
	must(t, err)
	defer m.Release(s)
	for _, tc := range []struct{ script, want string }{
		{"x := 1\n:drop 9\ny := 2\n", "error: line 2: :drop: no cell 9: the journal has 1 cell\n"},
		{"x := 1\n:journal\n\nundefined()\n", "error: 4:1: undefined: undefined\n"},
		{":load ../session.json\n", "error: line 1: :load: load ../session.json: "},
	} {
		var out, errOut bytes.Buffer
		if code := s.RunScript(context.Background(), tc.script, &out, &errOut); code != 1 || !strings.HasPrefix(errOut.String(), tc.want) {
			t.Errorf("%q: status %d, stderr %q; want 1 and %q", tc.script, code, errOut.String(), tc.want)
		}
		must(t, s.Reset(context.Background(), &out))
	}
}

// A session.json the session's code may have rewritten is checked: an owner
// that is not valid or not a user, another real user (the seal), an id of
// another directory, a symlink or an oversized file skip that session
// alone (logged); the others load.
func TestHostileSessionJSONSkipsThatSessionAlone(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	good := newSessionWithG(t, m1)
	var victims []string
	plants := []func(dir, id string){
		func(dir, id string) { rewriteMeta(t, dir, `"owner": "alice"`, `"owner": "../root"`) },
		func(dir, id string) { rewriteMeta(t, dir, `"owner": "alice"`, `"owner": "mallory"`) },
		func(dir, id string) { rewriteMeta(t, dir, `"owner": "alice"`, `"owner": "bob"`) }, // a real user: the seal catches it
		func(dir, id string) { rewriteMeta(t, dir, id, good) },
		func(dir, id string) {
			replaceFile(t, filepath.Join(dir, "session.json"), func(p string) error { return os.Symlink("/etc/passwd", p) })
		},
		func(dir, id string) {
			replaceFile(t, filepath.Join(dir, "session.json"), func(p string) error {
				f, err := os.Create(p)
				if err == nil {
					err = f.Truncate(8 << 30)
					f.Close()
				}
				return err
			})
		},
	}
	for range plants {
		victims = append(victims, newSessionWithG(t, m1))
	}
	m1.Shutdown(context.Background())
	for i, plant := range plants {
		plant(filepath.Join(root, victims[i]), victims[i])
	}
	m2, err := repl.NewManager(repl.Config{Root: root, NoSync: true, Now: clk.Now, NewEvaluator: evs.New(),
		CheckOwner: func(name string) error {
			if name != "alice" && name != "bob" {
				return errors.New("no such user")
			}
			return nil
		}})
	if err != nil {
		t.Fatalf("NewManager with hostile session.json files: %v", err)
	}
	defer m2.Shutdown(context.Background())
	for _, owner := range []string{"alice", "bob", "mallory", "../root"} {
		for _, info := range m2.List(owner) {
			if info.ID != good {
				t.Errorf("%s's session %s loaded from a hostile session.json", owner, info.ID)
			}
		}
	}
	s, err := m2.Acquire("alice", good)
	must(t, err)
	defer m2.Release(s)
	if got := eval(t, s, "g()"); got != "42\n" {
		t.Errorf("g() = %q; want 42", got)
	}
}

func rewriteMeta(tb testing.TB, dir, old, new string) {
	tb.Helper()
	p := filepath.Join(dir, "session.json")
	b, err := os.ReadFile(p)
	must(tb, err)
	if !strings.Contains(string(b), old) {
		tb.Fatalf("session.json %s holds no %s", b, old)
	}
	must(tb, os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o600))
}

func replaceFile(tb testing.TB, p string, make func(string) error) {
	tb.Helper()
	must(tb, os.Remove(p))
	must(tb, make(p))
}

// Sessions of the last release (session.json without a seal) load on the
// first start of a sealing host, which seals them; an unsealed one found
// later is refused like a forged one.
func TestUnsealedSessionsLoadOnlyOnTheUpgrade(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	id := newSessionWithG(t, m1)
	m1.Shutdown(context.Background())
	unseal := func() {
		p := filepath.Join(root, id, "session.json")
		b, err := os.ReadFile(p)
		must(t, err)
		var md map[string]any
		must(t, json.Unmarshal(b, &md))
		delete(md, "seal")
		b, _ = json.Marshal(md)
		must(t, os.WriteFile(p, b, 0o600))
	}
	unseal()
	must(t, os.Remove(filepath.Join(root, "session.key"))) // as the last release left the root
	m2 := newManager(t, root, clk, evs)
	if got := stateOf(m2, "alice", id); got != repl.StateRestorable {
		t.Fatalf("unsealed session on the upgrade: %v; want restorable", got)
	}
	m2.Shutdown(context.Background())
	if b, _ := os.ReadFile(filepath.Join(root, id, "session.json")); !strings.Contains(string(b), `"seal"`) {
		t.Errorf("session.json not sealed on the upgrade: %s", b)
	}
	m3 := newManager(t, root, clk, evs)
	if got := stateOf(m3, "alice", id); got != repl.StateRestorable {
		t.Fatalf("sealed session: %v; want restorable", got)
	}
	m3.Shutdown(context.Background())
	unseal()
	m4 := newManager(t, root, clk, evs)
	if got := stateOf(m4, "alice", id); got != "gone" {
		t.Errorf("unsealed session after the upgrade: %v; want it skipped", got)
	}
}
