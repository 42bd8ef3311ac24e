package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitUntil waits for cond; the bound only ends a broken test.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 60s", what)
		}
	}
}

// TestPoolGrowsWithLogins: a login that finds the pool empty doubles the
// idle workers it keeps, up to MaxSize; then, without such logins, it
// shrinks back to Size.
func TestPoolGrowsWithLogins(t *testing.T) {
	p := NewPool(PoolOptions{Size: 1, MaxSize: 4, decay: time.Hour})
	defer p.Close()
	root := t.TempDir()
	var held []*Worker
	defer func() {
		for _, w := range held {
			w.Close()
		}
	}()
	// hold takes every idle worker, so that the next Get finds none.
	hold := func(n int) {
		waitUntil(t, "idle workers", func() bool { return p.Idle() == n })
		for range n {
			held = append(held, <-p.idle)
		}
	}
	login := func() {
		w, err := p.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, root), Memory: testMemory})
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, w)
	}
	idle := 1
	for _, want := range []int{2, 4, 4} { // doubled, bounded by MaxSize
		hold(idle)
		login()
		waitUntil(t, "grown pool", func() bool { return p.Idle() == want })
		if got := cap(p.idle); got != 4 {
			t.Fatalf("pool holds up to %d; want 4", got)
		}
		idle = want
	}

	q := NewPool(PoolOptions{Size: 1, MaxSize: 2, decay: 20 * time.Millisecond})
	defer q.Close()
	waitUntil(t, "an idle worker", func() bool { return q.Idle() == 1 })
	held = append(held, <-q.idle)
	w, err := q.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, root), Memory: testMemory})
	if err != nil {
		t.Fatal(err)
	}
	held = append(held, w)
	waitUntil(t, "a shrunk pool", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.target == 1
	})
	waitUntil(t, "one idle worker", func() bool { return q.Idle() == 1 })
}

// TestPoolWorkerHasItsSession: the interpreter an idle worker made before
// its session was known imports the session's uploaded packages and sees
// the session's HOME.
func TestPoolWorkerHasItsSession(t *testing.T) {
	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	waitUntil(t, "an idle worker", func() bool { return p.Idle() == 1 })
	root := t.TempDir()
	dir := sessionDir(t, root)
	pkg := filepath.Join(dir, "classes", "src", "greet")
	os.MkdirAll(pkg, 0o755)
	if err := os.WriteFile(filepath.Join(pkg, "greet.go"), []byte("package greet\n\nfunc Hi(n string) string { return \"hi \" + n }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	w, err := p.Get(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory, Stdout: out, Stderr: out})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A worker started for the session (no pool) is the reference.
	fresh, freshOut := startWorker(t, root, WorkerOptions{Dir: dir})
	for _, c := range []*Worker{w, fresh} {
		mustEval(t, c, "import (\"greet\"; \"os\")", false)
		mustEval(t, c, `greet.Hi("bob")`, true)
		mustEval(t, c, `os.Getenv("HOME")`, true)
	}
	if got, want := out.String(), freshOut.String(); got != want || !strings.HasPrefix(got, fmt.Sprintf("%q\n", "hi bob")) || !strings.HasSuffix(got, "files\"\n") {
		t.Errorf("output %q; want %q (hi bob, then the session's files/)", got, want)
	}
}
