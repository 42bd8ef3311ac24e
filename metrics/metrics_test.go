package metrics

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
)

// scrape serves m on 127.0.0.1:0 and returns what path answers.
func scrape(t *testing.T, m *Metrics, path string) (int, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Serve(ctx, l)
	resp, err := http.Get("http://" + l.Addr().String() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func wantLines(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w+"\n") {
			t.Errorf("metrics lack %q", w)
		}
	}
}

// Cells of a real session are counted by outcome; a restore after a host
// restart is one Replay call (no Eval per journal cell), counted apart from
// the users' cells.
func TestMetricsCountCellsAndRestoreInOneReplay(t *testing.T) {
	root := t.TempDir()
	var mgr *repl.Manager
	m := New(Sources{Sessions: func() map[repl.State]int { return mgr.Counts() }, IdleWorkers: func() int { return 3 }})
	cfg := repl.Config{Root: root, NoSync: true, Events: m.Record,
		NewEvaluator: m.Count(repl.InProcess(sandbox.NewAllowlist(nil)))}
	var err error
	if mgr, err = repl.NewManager(cfg); err != nil {
		t.Fatal(err)
	}
	s, err := mgr.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, cell := range []string{"x := 1", "nope", `panic("x")`, "x++", "x"} {
		s.Eval(context.Background(), cell, true, &out, &out)
	}
	id := s.ID()
	mgr.Release(s)
	mgr.Shutdown(context.Background())

	if mgr, err = repl.NewManager(cfg); err != nil {
		t.Fatal(err)
	}
	defer mgr.Shutdown(context.Background())
	s, err = mgr.Acquire("alice", id)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := s.Eval(context.Background(), "x", true, &out, &out); err != nil || out.String() != "2\n" {
		t.Errorf("x after restore = %q, %v; want 2", out.String(), err)
	}
	_, body := scrape(t, m, "/metrics")
	wantLines(t, body,
		`replhost_cells_total{outcome="ok"} 4`,
		`replhost_cells_total{outcome="error"} 2`,
		`replhost_cell_duration_seconds_count 6`,
		`replhost_replayed_cells_total 3`,
		`replhost_restores_total{outcome="ok"} 1`,
		`replhost_evaluator_calls_total{call="replay"} 1`,
		`replhost_evaluator_calls_total{call="eval"} 6`,
		`replhost_worker_starts_total{result="ok"} 2`,
		`replhost_sessions{state="live"} 1`,
		`replhost_session_events_total{event="created"} 1`,
		`replhost_pool_idle_workers 3`,
	)
}

func TestHealthAndReadiness(t *testing.T) {
	m := New(Sources{})
	if code, _ := scrape(t, m, "/healthz"); code != 200 {
		t.Errorf("/healthz = %d; want 200", code)
	}
	if code, _ := scrape(t, m, "/readyz"); code != 503 {
		t.Errorf("/readyz before ready = %d; want 503", code)
	}
	m.SetReady(true)
	if code, _ := scrape(t, m, "/readyz"); code != 200 {
		t.Errorf("/readyz when ready = %d; want 200", code)
	}
}

func TestCrashLabel(t *testing.T) {
	for _, tc := range []struct{ reason, want string }{
		{"killed at memory cap 512MiB", "memory_cap"},
		{"disk quota exceeded", "disk_quota"},
		{"interrupted cell did not stop", "interrupt"},
		{"fatal error: stack overflow", "runtime"},
		{"protocol error: bad frame", "protocol"},
	} {
		if got := CrashLabel(tc.reason); got != tc.want {
			t.Errorf("CrashLabel(%q) = %q; want %q", tc.reason, got, tc.want)
		}
	}
}

func TestRefusalLabelsAreAFixedFew(t *testing.T) {
	for _, tc := range []struct{ reason, want string }{
		{"key not in authorized_keys", "key_not_authorized"},
		{"key not authorized", "key_not_authorized"},
		{"no such user", "no_such_user"},
		{"authorized_keys line 3 expired at 2026-01-01T00:00:00Z", "key_expired"},
		{`authorized_keys line 2: from="10.0.0.0/8" does not match 127.0.0.1`, "from_mismatch"},
		{"per-source-max-startups: 3 unauthenticated connections from this source", "per_source_max_startups"},
		{"max-startups: random early drop at 12 unauthenticated connections", "max_startups"},
		{"penalty: source refused for 4s more", "penalty"},
		{"too many authentication attempts (MaxAuthTries)", "max_auth_tries"},
		{"ssh: something the client chose, " + strings.Repeat("x", 100), "other"},
	} {
		if got := refusalLabel(tc.reason); got != tc.want {
			t.Errorf("refusalLabel(%q) = %q; want %q", tc.reason, got, tc.want)
		}
	}
}
