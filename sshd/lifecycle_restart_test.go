package sshd_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/udf"
)

// 500 sessions, 250 of them killed, a host restart: sessions shows exactly
// the other 250, each restorable, and they work.
func TestHalfOf500SessionsKilledTheRestSurviveARestart(t *testing.T) {
	const total = 500
	root := t.TempDir()
	opts := testhost.Options{Root: root, Repl: repl.Config{MaxSessionsPerUser: total, NoSync: true, NewEvaluator: lazyEvaluators()}}
	h := testhost.Start(t, opts)
	ids := make([]string, total)
	for i := range ids {
		s, err := h.Manager.Create(context.Background(), "alice")
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		h.Manager.Release(s)
		ids[i] = s.ID()
	}
	c := h.Dial(t, "alice")
	for _, id := range ids[:total/2] {
		if r := testhost.RunOn(t, c, "kill "+id, ""); r != (testhost.Result{}) {
			t.Fatalf("kill %s: %+v", id, r)
		}
	}
	h.Stop()

	h = testhost.Start(t, opts)
	got := listSessions(t, h, "alice")
	if len(got) != total/2 {
		t.Errorf("sessions lists %d; want %d", len(got), total/2)
	}
	for _, id := range ids[:total/2] {
		if got[id] != nil {
			t.Errorf("killed session %s is listed", id)
		}
	}
	for _, id := range ids[total/2:] {
		if f := got[id]; f == nil || f[1] != string(repl.StateRestorable) {
			t.Errorf("session %s: %v; want it restorable", id, f)
		}
	}
	expectRun(t, h, "alice", "eval --session "+ids[total-1]+" 40+2", "42\n")
}

// lazyEvaluators makes real in-process interpreters, each started at its
// first use: hundreds of sessions cost no more than their bookkeeping.
func lazyEvaluators() repl.NewEvaluator {
	inner := repl.InProcess(sandbox.NewAllowlist(nil))
	return func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		return &lazyEvaluator{start: func() (repl.Evaluator, error) { return inner(ctx, spec) }}, nil
	}
}

type lazyEvaluator struct {
	start func() (repl.Evaluator, error)

	mu     sync.Mutex // guards ev and closed
	ev     repl.Evaluator
	closed bool
}

func (l *lazyEvaluator) get() (repl.Evaluator, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, sandbox.ErrClosed
	}
	if l.ev == nil {
		ev, err := l.start()
		if err != nil {
			return nil, err
		}
		l.ev = ev
	}
	return l.ev, nil
}

func (l *lazyEvaluator) Eval(ctx context.Context, cell string, show bool) error {
	ev, err := l.get()
	if err != nil {
		return err
	}
	return ev.Eval(ctx, cell, show)
}

func (l *lazyEvaluator) Complete(word string) []string {
	if ev, err := l.get(); err == nil {
		return ev.Complete(word)
	}
	return nil
}

func (l *lazyEvaluator) Replay(ctx context.Context, cells []string) (int, error) {
	ev, err := l.get()
	if err != nil {
		return 0, err
	}
	return ev.Replay(ctx, cells)
}

func (l *lazyEvaluator) UDFs() ([]udf.Entry, error) {
	ev, err := l.get()
	if err != nil {
		return nil, err
	}
	return ev.UDFs()
}

func (l *lazyEvaluator) CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (int, error) {
	ev, err := l.get()
	if err != nil {
		return 0, err
	}
	return ev.CallUDF(ctx, name, in, out, errOut)
}

func (l *lazyEvaluator) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.ev != nil {
		return l.ev.Close()
	}
	return nil
}

// A cell that worked before the restart but fails now (it imported an
// uploaded package since removed) stops the restore there; the user is told
// which, and the session goes on with the cells before it.
func TestRestoreStopsAtACellThatFailsNow(t *testing.T) {
	root := t.TempDir()
	opts := testhost.Options{Root: root, Repl: repl.Config{NoSync: true}}
	h := testhost.Start(t, opts)
	id := detachedSession(t, h, "alice")
	pkg := filepath.Join(root, id, "classes", "src", "greet")
	if err := os.MkdirAll(pkg, 0o700); err != nil {
		t.Fatal(err)
	}
	src := "package greet\n\nfunc Hello() string { return \"hello\" }\n"
	if err := os.WriteFile(filepath.Join(pkg, "greet.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"x := 41", `import "greet"`, "h := greet.Hello()", "y := 1"} {
		expectRun(t, h, "alice", "eval --session "+id+" "+cell, "")
	}
	h.Stop()
	if err := os.RemoveAll(pkg); err != nil {
		t.Fatal(err)
	}

	h = testhost.Start(t, opts)
	r := h.Run(t, "alice", "eval --session "+id+" x + 1", "")
	notice := `restore stopped at cell 2 of 4 (import "greet"): `
	if r.Status != 0 || r.Stdout != "42\n" || !strings.HasPrefix(r.Stderr, notice) || !strings.Contains(r.Stderr, "cells 2-4 dropped") {
		t.Errorf("first use after restart: %+v; want 42, status 0 and a notice %q... naming cells 2-4", r, notice)
	}
	term := h.Terminal(t, "alice", "attach "+id)
	term.Expect("go> ")
	term.Send("x\r")
	term.Expect(`\r\n41\r\n`)
	term.Send("\x04")
	term.Wait()

	h.Stop()
	h = testhost.Start(t, opts)
	if r := h.Run(t, "alice", "eval --session "+id+" x + 1", ""); r != (testhost.Result{Stdout: "42\n"}) {
		t.Errorf("second restart: %+v; want 42 and no notice (the journal was cut at the failing cell)", r)
	}
}
