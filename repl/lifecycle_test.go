package repl_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
)

// TestMain makes the test binary a worker process when the sandbox starts
// it as one (the process-isolation benchmarks).
func TestMain(m *testing.M) {
	testhost.ServeWorker()
	os.Exit(m.Run())
}

// clock is a settable clock for Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// evaluators starts real in-process interpreters and counts how many are
// open, so tests can see that eviction and kill end them.
type evaluators struct{ started, closed atomic.Int64 }

func (c *evaluators) open() int64 { return c.started.Load() - c.closed.Load() }

func (c *evaluators) New() repl.NewEvaluator {
	inner := repl.InProcess(sandbox.NewAllowlist(nil))
	return func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		ev, err := inner(ctx, spec)
		if err != nil {
			return nil, err
		}
		c.started.Add(1)
		return &countedEvaluator{Evaluator: ev, c: c}, nil
	}
}

type countedEvaluator struct {
	repl.Evaluator
	c    *evaluators
	once sync.Once
}

func (e *countedEvaluator) Close() error {
	e.once.Do(func() { e.c.closed.Add(1) })
	return e.Evaluator.Close()
}

const ttl = 30 * time.Minute

// newManager opens a Manager on root with the clock and evaluators given.
func newManager(tb testing.TB, root string, clk *clock, evs *evaluators) *repl.Manager {
	tb.Helper()
	m, err := repl.NewManager(repl.Config{Root: root, NewEvaluator: evs.New(), SessionTTL: ttl,
		MaxSessionsPerUser: 1000, NoSync: true, Now: clk.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

// eval runs cells in s and returns what the last one printed.
func eval(tb testing.TB, s *repl.Session, cells ...string) string {
	tb.Helper()
	var out bytes.Buffer
	for _, c := range cells {
		out.Reset()
		if err := s.Eval(context.Background(), c, true, &out, &out); err != nil {
			tb.Fatalf("eval %q: %v (output %q)", c, err, out.String())
		}
	}
	return out.String()
}

// newSessionWithG creates a detached session of alice that defines x and g.
func newSessionWithG(tb testing.TB, m *repl.Manager) string {
	tb.Helper()
	s, err := m.Create(context.Background(), "alice")
	if err != nil {
		tb.Fatal(err)
	}
	eval(tb, s, "x := 41", "func g() int { return x + 1 }")
	m.Release(s)
	return s.ID()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func stateOf(m *repl.Manager, owner, id string) repl.State {
	for _, info := range m.List(owner) {
		if info.ID == id {
			return info.State
		}
	}
	return "gone"
}

// A session comes back whole in the next Manager on the same root: listed as
// restorable, rebuilt from its journal on first use.
func TestRestoreAfterShutdown(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	id := newSessionWithG(t, m1)
	if got := stateOf(m1, "alice", id); got != repl.StateDetached {
		t.Errorf("state before restart = %v; want %v", got, repl.StateDetached)
	}
	if err := m1.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := evs.open(); got != 0 {
		t.Errorf("%d interpreters open after Shutdown; want 0", got)
	}
	if _, err := m1.Acquire("alice", id); !errors.Is(err, repl.ErrShuttingDown) {
		t.Errorf("Acquire after Shutdown: %v; want ErrShuttingDown", err)
	}

	m2 := newManager(t, root, clk, evs)
	if got := stateOf(m2, "alice", id); got != repl.StateRestorable {
		t.Errorf("state after restart = %v; want %v", got, repl.StateRestorable)
	}
	if got := evs.open(); got != 0 {
		t.Errorf("%d interpreters open after start-up; want 0 (restore is lazy)", got)
	}
	s, err := m2.Acquire("alice", id)
	if err != nil {
		t.Fatal(err)
	}
	if got := eval(t, s, "g()"); got != "42\n" {
		t.Errorf("g() = %q; want 42", got)
	}
	m2.Release(s)
	if got := stateOf(m2, "alice", id); got != repl.StateDetached {
		t.Errorf("state after use = %v; want %v", got, repl.StateDetached)
	}
	if got := s.JournalLen(); got != 3 {
		t.Errorf("journal has %d cells; want 3", got)
	}
}

// What a crash leaves half done is ignored, and removed: a session
// directory being created or removed at host start-up, a session.json or a
// cell being written when the session is restored.
func TestCrashLeftoversAreCleanedOnStart(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	id := newSessionWithG(t, m1)
	m1.Shutdown(context.Background())

	dir := filepath.Join(root, id)
	leftovers := map[string]string{
		".new-0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b/session.json":   `{"id":"0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b","owner":"alice"}`,
		".trash-7f0e9d8c-6b5a-4c3d-8e2f-1a0b9c8d7e6f/session.json": `{"id":"7f0e9d8c-6b5a-4c3d-8e2f-1a0b9c8d7e6f","owner":"alice"}`,
		id + "/.tmp-session.json-12345":                            `{"id":"` + id + `","own`,
		id + "/classes/repl/.tmp-000003.go-777":                    `x = 99`,
	}
	for name, data := range leftovers {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	m2 := newManager(t, root, clk, evs)
	if got := len(m2.List("alice")); got != 1 {
		t.Errorf("alice has %d sessions; want 1", got)
	}
	for _, name := range []string{".new-0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b", ".trash-7f0e9d8c-6b5a-4c3d-8e2f-1a0b9c8d7e6f"} {
		if exists(filepath.Join(root, name)) {
			t.Errorf("%s left after start-up", name)
		}
	}
	s, err := m2.Acquire("alice", id)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Release(s)
	if got := eval(t, s, "g()"); got != "42\n" {
		t.Errorf("g() = %q; want 42 (the half-written cell must not run)", got)
	}
	for _, name := range []string{".tmp-session.json-12345", "classes/repl/.tmp-000003.go-777"} {
		if exists(filepath.Join(dir, name)) {
			t.Errorf("%s left after the session's restore", name)
		}
	}
}

// A cell that ran before but fails now (its uploaded package was removed)
// stops the restore there, says which, and the session goes on from there.
func TestReplayStopsAtTheCellThatFails(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	s, err := m1.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(s.Dir(), "classes/src/greet")
	if err := os.MkdirAll(pkg, 0o700); err != nil {
		t.Fatal(err)
	}
	src := "package greet\n\nfunc Hello() string { return \"hello\" }\n"
	if err := os.WriteFile(filepath.Join(pkg, "greet.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	eval(t, s, "x := 41", `import "greet"`, "h := greet.Hello()", "y := 1")
	m1.Release(s)
	m1.Shutdown(context.Background())
	if err := os.RemoveAll(pkg); err != nil {
		t.Fatal(err)
	}

	m2 := newManager(t, root, clk, evs)
	s, err = m2.Acquire("alice", s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Release(s)
	var notice bytes.Buffer
	if err := s.Load(context.Background(), &notice); err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := `restore stopped at cell 2 of 4 (import "greet"): `
	if got := notice.String(); !strings.HasPrefix(got, want) || !strings.Contains(got, "cells 2-4 dropped") {
		t.Errorf("notice = %q; want it to start %q and name cells 2-4", got, want)
	}
	if got := eval(t, s, "x + 1"); got != "42\n" {
		t.Errorf("x + 1 = %q; want 42 (cells before the failing one stay)", got)
	}
	if got := s.JournalLen(); got != 2 {
		t.Errorf("journal has %d cells; want 2 (x, then x + 1)", got)
	}
}

// Create refuses a session over the per-user cap with one clear error;
// other users are not affected, and a killed session frees its place.
func TestMaxSessionsPerUser(t *testing.T) {
	m, err := repl.NewManager(repl.Config{Root: t.TempDir(), MaxSessionsPerUser: 2, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	var ids []string
	for range 2 {
		s, err := m.Create(context.Background(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		m.Release(s)
		ids = append(ids, s.ID())
	}
	_, err = m.Create(context.Background(), "alice")
	if want := "too many sessions: 2 of 2 in use; end one with kill UUID"; err == nil || err.Error() != want {
		t.Errorf("third session: %v; want %q", err, want)
	}
	if !errors.Is(err, repl.ErrTooManySessions) {
		t.Errorf("got %v; want ErrTooManySessions", err)
	}
	s, err := m.Create(context.Background(), "bob")
	if err != nil {
		t.Errorf("bob's session: %v; want one", err)
	} else {
		m.Release(s)
	}
	if err := m.Kill("alice", ids[0]); err != nil {
		t.Fatal(err)
	}
	s, err = m.Create(context.Background(), "alice")
	if err != nil {
		t.Errorf("after a kill: %v; want a session", err)
	} else {
		m.Release(s)
	}
}

// Kill, and Acquire of anything but one's own session, answer the same
// ErrNoSuchSession.
func TestNoSuchSession(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m := newManager(t, root, clk, evs)
	killed := newSessionWithG(t, m)
	if err := m.Kill("alice", killed); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(root, killed)) {
		t.Error("killed session's directory is still there")
	}
	evicted := newSessionWithG(t, m)
	clk.Add(ttl)
	alive := newSessionWithG(t, m)
	if n := m.EvictIdle(); n != 1 {
		t.Fatalf("evicted %d; want 1", n)
	}
	bobs, err := m.Create(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	m.Release(bobs)
	elsewhere := newSessionWithG(t, newManager(t, t.TempDir(), clk, evs))
	for _, tc := range []struct{ name, user, id string }{
		{"made-up", "alice", "0b6c2a5e-8d1f-4f7e-9a51-0c1d2e3f4a5b"},
		{"killed", "alice", killed},
		{"evicted", "alice", evicted},
		{"malformed", "alice", "../" + alive},
		{"upper-case", "alice", strings.ToUpper(alive)},
		{"empty", "alice", ""},
		{"another-hosts", "alice", elsewhere},
		{"bobs-by-alice", "alice", bobs.ID()},
		{"alices-by-bob", "bob", alive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Acquire(tc.user, tc.id); err != repl.ErrNoSuchSession {
				t.Errorf("Acquire: got %v; want %v", err, repl.ErrNoSuchSession)
			}
			if err := m.Kill(tc.user, tc.id); err != repl.ErrNoSuchSession {
				t.Errorf("Kill: got %v; want %v", err, repl.ErrNoSuchSession)
			}
		})
	}
	if got := stateOf(m, "alice", alive); got != repl.StateDetached {
		t.Errorf("alice's session after bob's attempts: %v; want %v", got, repl.StateDetached)
	}
	if got := stateOf(m, "bob", bobs.ID()); got != repl.StateDetached {
		t.Errorf("bob's session after alice's attempts: %v; want %v", got, repl.StateDetached)
	}
}

// batchEvaluator is an in-process interpreter that also replays a journal
// in one call, as a worker process may.
type batchEvaluator struct {
	repl.Evaluator
	replays *atomic.Int64
}

func (b batchEvaluator) Replay(ctx context.Context, cells []string) (int, error) {
	b.replays.Add(1)
	for i, c := range cells {
		if err := b.Eval(ctx, c, false); err != nil {
			return i, err
		}
	}
	return len(cells), nil
}

// An evaluator that can replay a whole journal gets it in one call, and a
// failure it reports stops the restore at that cell.
func TestRestoreUsesReplayer(t *testing.T) {
	root, clk := t.TempDir(), newClock()
	var replays atomic.Int64
	inner := repl.InProcess(sandbox.NewAllowlist(nil))
	cfg := repl.Config{Root: root, NoSync: true, Now: clk.Now,
		NewEvaluator: func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
			ev, err := inner(ctx, spec)
			return batchEvaluator{ev, &replays}, err
		}}
	m1, err := repl.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := newSessionWithG(t, m1)
	s, _ := m1.Acquire("alice", id)
	eval(t, s, `y := "later"`)
	m1.Release(s)
	m1.Shutdown(context.Background())
	// A last cell that fails (a journal only holds cells that ran, but the
	// world may have changed since).
	j := repl.OpenJournal(filepath.Join(root, id), false)
	if err := j.Append("undefinedFunc()"); err != nil {
		t.Fatal(err)
	}
	j.Close()

	m2, err := repl.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Shutdown(context.Background())
	before := replays.Load()
	s, err = m2.Acquire("alice", id)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Release(s)
	var out, notice bytes.Buffer
	if err := s.Eval(context.Background(), "g()", true, &out, &notice); err != nil || out.String() != "42\n" {
		t.Errorf("g() = %q, %v; want 42", out.String(), err)
	}
	if got := replays.Load() - before; got != 1 {
		t.Errorf("%d Replay calls for one restore; want 1", got)
	}
	if want := "restore stopped at cell 4 of 4 (undefinedFunc()): "; !strings.HasPrefix(notice.String(), want) {
		t.Errorf("notice = %q; want it to start %q", notice.String(), want)
	}
}
