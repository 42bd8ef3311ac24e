package repl_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
)

// The environment a session was created with is in its session.json, so a
// manager started on the same root (a host restart) gives it back; it is
// sealed with the session's other fields (a session.json whose env was
// rewritten is skipped), and an environment sandbox.CheckEnv refuses is
// refused at Create, before anything is written.
func TestSessionEnvironmentInSessionJSON(t *testing.T) {
	root := t.TempDir()
	cfg := repl.Config{Root: root, NoSync: true, NewEvaluator: repl.InProcess(sandbox.NewAllowlist(nil))}
	m1, err := repl.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Create(context.Background(), "alice", repl.WithEnv([]string{"HOME=/etc"})); !errors.Is(err, sandbox.ErrBadEnv) {
		t.Errorf("Create with HOME: %v; want sandbox.ErrBadEnv", err)
	}
	s, err := m1.Create(context.Background(), "alice", repl.WithEnv([]string{"LANG=de_DE.UTF-8", "USER=alice"}))
	if err != nil {
		t.Fatal(err)
	}
	kept := s.ID()
	m1.Release(s)
	s, err = m1.Create(context.Background(), "alice", repl.WithEnv([]string{"LANG=C"}))
	if err != nil {
		t.Fatal(err)
	}
	forged := s.ID()
	m1.Release(s)
	m1.Shutdown(context.Background())
	// Rewrite the second one's environment, as a session could if it ever
	// reached its session.json.
	path := filepath.Join(root, forged, "session.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"LANG=C"`) {
		t.Fatalf("session.json holds no env: %s", b)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(`"LANG=C"`), []byte(`"LANG=xx"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}

	m2, err := repl.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Shutdown(context.Background())
	s, err = m2.Acquire("alice", kept)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := s.Eval(context.Background(), `import "os"; os.Getenv("LANG") + "|" + os.Getenv("USER")`, true, &out, &errOut); err != nil || out.String() != "\"de_DE.UTF-8|alice\"\n" {
		t.Errorf("after a restart the session sees %q (%v, %q); want \"de_DE.UTF-8|alice\"", out.String(), err, errOut.String())
	}
	m2.Release(s)
	if _, err := m2.Acquire("alice", forged); !errors.Is(err, repl.ErrNoSuchSession) {
		t.Errorf("session with a rewritten env: %v; want it skipped (ErrNoSuchSession)", err)
	}
}
