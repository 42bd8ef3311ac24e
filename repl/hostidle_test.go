package repl_test

import (
	"context"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

// The host looks at its free heap once its cells have stopped for
// IdleRelease, once per idle spell; a negative IdleRelease turns it off.
func TestHostIdleReleaseAfterCells(t *testing.T) {
	for _, c := range []struct {
		name  string
		delay time.Duration
		want  int64
	}{
		{"after-a-cell", 10 * time.Millisecond, 1},
		{"off", -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := repl.NewManager(repl.Config{Root: t.TempDir(), NoSync: true, IdleRelease: c.delay})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Shutdown(context.Background()) })
			s, err := m.Create(context.Background(), "alice")
			if err != nil {
				t.Fatal(err)
			}
			if _, checks := m.IdleCounts(); checks != 0 {
				t.Fatalf("idle checks before any cell: %d; want 0", checks)
			}
			if got := eval(t, s, "x := 1", "x + 1"); got != "2\n" {
				t.Fatalf("x + 1 printed %q; want 2", got)
			}
			if c.want == 0 {
				if _, checks := m.IdleCounts(); checks != 0 {
					t.Fatalf("idle checks with the release off: %d; want 0", checks)
				}
				return
			}
			// Bounded wait for the timer (10 ms) on a loaded machine.
			deadline := time.Now().Add(time.Minute)
			for _, checks := m.IdleCounts(); checks < c.want; _, checks = m.IdleCounts() {
				if time.Now().After(deadline) {
					t.Fatalf("idle checks after a minute: %d; want %d", checks, c.want)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
