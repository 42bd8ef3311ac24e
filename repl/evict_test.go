package repl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replhost/replhost/repl"
)

// Eviction takes exactly the idle sessions at or past the TTL, and with
// them their interpreter and directory.
func TestEvictIdle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		idle    time.Duration
		evicted bool
	}{
		{"just-used", 0, false},
		{"one-second-before-ttl", ttl - time.Second, false},
		{"at-ttl", ttl, true},
		{"long-after-ttl", 10 * ttl, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, clk, evs := t.TempDir(), newClock(), &evaluators{}
			m := newManager(t, root, clk, evs)
			id := newSessionWithG(t, m)
			clk.Add(tc.idle)
			n := m.EvictIdle()
			if got := n == 1; got != tc.evicted {
				t.Fatalf("evicted %d; want evicted=%v", n, tc.evicted)
			}
			_, err := m.Acquire("alice", id)
			if got := errors.Is(err, repl.ErrNoSuchSession); got != tc.evicted {
				t.Errorf("Acquire: %v; want no such session: %v", err, tc.evicted)
			}
			if got := !exists(filepath.Join(root, id)); got != tc.evicted {
				t.Errorf("directory removed: %v; want %v", got, tc.evicted)
			}
			if got := evs.open() == 0; got != tc.evicted {
				t.Errorf("%d interpreters open; want closed: %v", evs.open(), tc.evicted)
			}
		})
	}
}

// A session in use is never evicted, however old its last use: held by a
// command or terminal, or running a cell.
func TestEvictIdleSparesSessionsInUse(t *testing.T) {
	t.Run("held", func(t *testing.T) {
		root, clk, evs := t.TempDir(), newClock(), &evaluators{}
		m := newManager(t, root, clk, evs)
		id := newSessionWithG(t, m)
		s, err := m.Acquire("alice", id)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(10 * ttl)
		if n := m.EvictIdle(); n != 0 {
			t.Errorf("evicted %d held sessions; want 0", n)
		}
		if got := eval(t, s, "g()"); got != "42\n" {
			t.Errorf("g() = %q; want 42", got)
		}
		m.Release(s)
		clk.Add(ttl)
		if n := m.EvictIdle(); n != 1 {
			t.Errorf("evicted %d after release and a TTL; want 1", n)
		}
	})
	t.Run("running-a-cell", func(t *testing.T) {
		root, clk, evs := t.TempDir(), newClock(), &evaluators{}
		m := newManager(t, root, clk, evs)
		id := newSessionWithG(t, m)
		s, err := m.Acquire("alice", id)
		if err != nil {
			t.Fatal(err)
		}
		m.Release(s) // nobody holds it; only the cell keeps it busy
		// The cell ends by itself when stop appears: an ordinary end, after
		// which the session is idle again.
		stop := filepath.Join(t.TempDir(), "stop")
		cell := fmt.Sprintf("import (\"fmt\"; \"os\")\nfunc stopped() bool { _, err := os.Stat(%q); return err == nil }\nfmt.Println(\"spinning\")\nfor !stopped() {}", stop)
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.Eval(context.Background(), cell, false, &signalWriter{c: started}, io.Discard)
		}()
		select {
		case <-started:
		case err := <-done:
			t.Fatalf("cell ended before it spun: %v", err)
		}
		clk.Add(10 * ttl)
		if n := m.EvictIdle(); n != 0 {
			t.Errorf("evicted %d sessions running a cell; want 0", n)
		}
		if err := os.WriteFile(stop, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Errorf("cell: %v", err)
		}
		clk.Add(ttl)
		if n := m.EvictIdle(); n != 1 {
			t.Errorf("evicted %d after the cell and a TTL; want 1", n)
		}
		if evs.open() != 0 {
			t.Errorf("%d interpreters open after eviction; want 0", evs.open())
		}
	})
}

// signalWriter closes c at its first write.
type signalWriter struct {
	c    chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.c) })
	return len(p), nil
}

// A session restored from disk counts its TTL from the later of its last use
// and the host's start: a host down for longer than the TTL gives everyone a
// full TTL to come back.
func TestRestoredSessionTTLCountsFromHostStart(t *testing.T) {
	root, clk, evs := t.TempDir(), newClock(), &evaluators{}
	m1 := newManager(t, root, clk, evs)
	id := newSessionWithG(t, m1)
	m1.Shutdown(context.Background())

	clk.Add(5 * ttl) // the host is down
	m2 := newManager(t, root, clk, evs)
	clk.Add(ttl - time.Second)
	if n := m2.EvictIdle(); n != 0 {
		t.Errorf("evicted %d a second before a TTL after start; want 0", n)
	}
	clk.Add(time.Second)
	if n := m2.EvictIdle(); n != 1 {
		t.Errorf("evicted %d a TTL after start; want 1", n)
	}
	if exists(filepath.Join(root, id)) {
		t.Error("evicted session's directory is still there")
	}
}

// Acquire right at the TTL boundary, racing with eviction, either wins (the
// session is whole: its directory, its journal, its state) or finds no
// session (and then nothing of it is left). Run with -race.
func TestAcquireRacesEvictIdleAtTheTTLBoundary(t *testing.T) {
	for _, tc := range []struct {
		name          string
		restart, kill bool
	}{
		{"loaded-evicted", false, false},
		{"restored-evicted", true, false},
		{"loaded-killed", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const sessions, racers = 24, 3
			root, clk, evs := t.TempDir(), newClock(), &evaluators{}
			m := newManager(t, root, clk, evs)
			var ids []string
			for range sessions {
				ids = append(ids, newSessionWithG(t, m))
			}
			if tc.restart {
				m.Shutdown(context.Background())
				m = newManager(t, root, clk, evs)
			}
			clk.Add(ttl) // every session is exactly at its TTL

			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 2 {
				wg.Go(func() {
					<-start
					for range 50 {
						// Yield a little first, so that some Acquires come
						// before the first eviction and some after.
						for range 2 {
							runtime.Gosched()
						}
						if !tc.kill {
							m.EvictIdle()
							continue
						}
						for _, id := range ids {
							if err := m.Kill("alice", id); err != nil && !errors.Is(err, repl.ErrNoSuchSession) {
								t.Errorf("Kill: %v", err)
							}
						}
					}
				})
			}
			for _, id := range ids {
				for range racers {
					wg.Go(func() {
						<-start
						s, err := m.Acquire("alice", id)
						if err != nil {
							if !errors.Is(err, repl.ErrNoSuchSession) {
								t.Errorf("Acquire: %v; want a session or ErrNoSuchSession", err)
							}
							return
						}
						defer m.Release(s)
						if !tc.kill && !exists(filepath.Join(root, id, "session.json")) {
							t.Errorf("%s: acquired, but its session.json is gone", id)
						}
						var out bytes.Buffer
						err = s.Eval(context.Background(), "g()", true, &out, &out)
						if tc.kill && (errors.Is(err, repl.ErrNoSuchSession) || errors.Is(err, context.Canceled) || errors.Is(err, repl.ErrJournalClosed)) {
							return // killed while held, mid-cell, or after the cell ran but before it was saved: the user asked for it
						}
						if err != nil || out.String() != "42\n" {
							t.Errorf("%s: g() = %q, %v; want 42", id, out.String(), err)
						}
					})
				}
			}
			close(start)
			wg.Wait()

			won := 0
			for _, id := range ids {
				listed := stateOf(m, "alice", id) != "gone"
				onDisk := exists(filepath.Join(root, id))
				if listed != onDisk {
					t.Errorf("%s: listed %v, on disk %v: half removed", id, listed, onDisk)
				}
				if listed {
					won++
				}
			}
			if got := evs.open(); got != int64(won) {
				t.Errorf("%d interpreters open for %d sessions left", got, won)
			}
			t.Logf("%d of %d sessions left", won, sessions)
		})
	}
}

// The evictor runs on the real clock; in a synctest bubble that clock is
// fake, so a TTL passes without sleeping.
func TestRunEvictorEvictsAfterTheTTL(t *testing.T) {
	root := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		evs := &evaluators{}
		m, err := repl.NewManager(repl.Config{Root: root, NewEvaluator: evs.New(), SessionTTL: time.Hour, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.Create(context.Background(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		m.Release(s)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go m.RunEvictor(ctx, 0) // checks every 6 minutes

		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		if got := len(m.List("alice")); got != 1 {
			t.Errorf("%d sessions a second before the TTL; want 1", got)
		}
		time.Sleep(6 * time.Minute)
		synctest.Wait()
		if got := len(m.List("alice")); got != 0 {
			t.Errorf("%d sessions a TTL and an interval later; want 0", got)
		}
		if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("directory after eviction: %v; want it gone", err)
		}
		if evs.open() != 0 {
			t.Errorf("%d interpreters open after eviction; want 0", evs.open())
		}
	})
}
