package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/replhost/replhost/sandbox"
)

// benchCells is a journal of n cells as a session builds them up:
// variables, functions using them, a type with a method, and statements.
func benchCells(n int) []string {
	cells := make([]string, n)
	for i := range cells {
		switch i % 4 {
		case 0:
			cells[i] = fmt.Sprintf("v%d := %d", i, i)
		case 1:
			cells[i] = fmt.Sprintf("func f%d(a int) int { return a + v%d }", i, i-1)
		case 2:
			cells[i] = fmt.Sprintf("type T%d struct{ A, B int }\nfunc (t T%d) Sum() int { return t.A + t.B + f%d(1) }", i, i, i-1)
		case 3:
			cells[i] = fmt.Sprintf("v%d = T%d{A: 1, B: 2}.Sum()", i-3, i-1)
		}
	}
	return cells
}

// plainCells is a journal of n cells with nothing for the sandbox's typed
// front end to do (no braces, methods, generics...): yaegi's cost alone.
func plainCells(n int) []string {
	cells := make([]string, n)
	for i := range cells {
		if i%2 == 0 {
			cells[i] = fmt.Sprintf("v%d := %d * 2", i, i)
		} else {
			cells[i] = fmt.Sprintf("v%d = v%d + len(\"abc\")", i-1, i-1)
		}
	}
	return cells
}

// writeSessions puts count sessions with a journal of cells each under
// root, as a previous host would have left them.
func writeSessions(tb testing.TB, root string, count int, cells []string) {
	tb.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range count {
		md := meta{ID: uuid.NewString(), Owner: fmt.Sprintf("user%d", i%50), Created: t0, LastUsed: t0, State: StateDetached}
		if err := createSessionDir(root, md, nil, false); err != nil {
			tb.Fatal(err)
		}
		j := OpenJournal(filepath.Join(root, md.ID), false)
		for _, c := range cells {
			if err := j.Append(c); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// Restore of one session with a 100-cell journal: a new in-process
// interpreter, the journal read and replayed (what the first attach or
// eval --session after a host restart costs). mixed is a journal of
// functions, types and methods, every cell of which goes through the
// sandbox's typed front end; plain is one that needs none of it;
// the -worker ones restore into a worker process from a warm pool (the
// test binary serves as the worker: TestMain), whose CPU time cpu-ms/op
// does not count.
func BenchmarkRestore100Cells(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	pool := sandbox.NewPool(sandbox.PoolOptions{Executable: exe, Args: []string{"-test.run=^$"}})
	defer pool.Close()
	workers := InWorkers(pool, sandbox.NewAllowlist(nil), 256<<20)
	for _, tc := range []struct {
		name  string
		cells []string
		eval  NewEvaluator // nil: in-process
	}{
		{"mixed", benchCells(100), nil},
		{"plain", plainCells(100), nil},
		{"mixed-worker", benchCells(100), workers},
		{"plain-worker", plainCells(100), workers},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := b.TempDir()
			writeSessions(b, root, 1, tc.cells)
			m, err := NewManager(Config{Root: root, NoSync: true, NewEvaluator: tc.eval})
			if err != nil {
				b.Fatal(err)
			}
			var s *Session
			for _, s = range m.sessions {
			}
			cpu := cpuTime()
			for b.Loop() {
				s.unload()
				if err := s.Load(context.Background(), failOnNotice{b}); err != nil {
					b.Fatal(err)
				}
				if tc.eval != nil {
					// One restore at a time, as when a user comes back:
					// the pool has refilled with a started worker.
					b.StopTimer()
					time.Sleep(200 * time.Millisecond)
					b.StartTimer()
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used. On a
// shared machine it varies less than the wall time benchmarks report.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since start as cpu-ms/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// failOnNotice fails the benchmark if a restore reports a failing cell.
type failOnNotice struct{ tb testing.TB }

func (f failOnNotice) Write(p []byte) (int, error) {
	if !strings.HasPrefix(string(p), "restored ") {
		f.tb.Fatalf("restore: %s", p)
	}
	return len(p), nil
}

// Host start-up with 1,000 restorable sessions on disk, with journals of 1
// and of 100 cells: start-up reads session.json files only, so both take
// the same time.
func BenchmarkNewManager1000Sessions(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("cells-%d", n), func(b *testing.B) {
			root := b.TempDir()
			writeSessions(b, root, 1000, benchCells(n))
			cpu := cpuTime()
			for b.Loop() {
				m, err := NewManager(Config{Root: root})
				if err != nil {
					b.Fatal(err)
				}
				if len(m.sessions) != 1000 {
					b.Fatalf("%d sessions; want 1000", len(m.sessions))
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// Create and Release of a session (what `new` costs the host), with the
// fsyncs of a real host and without.
func BenchmarkCreateRelease(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		b.Run(fmt.Sprintf("nosync-%v", noSync), func(b *testing.B) {
			m, err := NewManager(Config{Root: b.TempDir(), NoSync: noSync, MaxSessionsPerUser: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Shutdown(context.Background())
			for b.Loop() {
				s, err := m.Create(context.Background(), "alice")
				if err != nil {
					b.Fatal(err)
				}
				m.Release(s)
				b.StopTimer()
				m.Kill("alice", s.ID()) // keep the interpreters few
				b.StartTimer()
			}
		})
	}
}

// Journal.Append of one cell, fsynced (a real host: survives a power loss)
// and not: what the journal adds to each successful cell.
func BenchmarkJournalAppend(b *testing.B) {
	for _, sync := range []bool{true, false} {
		b.Run(fmt.Sprintf("sync-%v", sync), func(b *testing.B) {
			j := OpenJournal(b.TempDir(), sync)
			for b.Loop() {
				if err := j.Append("x := 41"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
