package sshd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// canary is another user's session that counts every 50 ms while hostile
// code runs elsewhere: it must never miss a beat nor lose its state.
type canary struct {
	beats, misses int
	slowest       time.Duration
	err           error
}

func runCanary(ctx context.Context, t *testing.T, h *testhost.Host, wg *sync.WaitGroup) *canary {
	id := newSession(t, h, "bob")
	mustEval(t, h, "bob", id, "n := 0")
	c := h.Dial(t, "bob")
	res := &canary{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for want := 1; ; want++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			s, err := c.NewSession()
			if err != nil {
				res.err = err
				return
			}
			out, err := s.Output("eval --session " + id + " n++; n")
			s.Close()
			if d := time.Since(start); d > res.slowest {
				res.slowest = d
			}
			if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(want) {
				res.misses++
				res.err = fmt.Errorf("beat %d: %q, %v", want, out, err)
				return
			}
			res.beats++
		}
	}()
	return res
}

// Hostile cells through the real server, each in alice's session, with
// process isolation: one clear line each, the session goes on (restored
// where its worker died), the canary never misses a beat, nothing outside
// the session directory is touched.
func TestHostileCellsWithCanary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	h := testhost.Start(t, testhost.Options{Process: true})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	can := runCanary(ctx, t, h, &wg)

	id := newSession(t, h, "alice")
	other := newSession(t, h, "alice")
	mustEval(t, h, "alice", id, "kept := 42")
	cases := []struct {
		name, code, wantErr string
	}{
		{"goroutine-panic", `import "time"; go func() { panic("boom") }(); time.Sleep(time.Second)`, "session crashed: panic: boom"},
		{"unbounded-recursion", `func r(n int) int { return r(n+1) + 1 }; r(0)`, "session crashed: runtime: goroutine stack exceeds"},
		{"fatal-error", `import "sync"; var mu sync.Mutex; mu.Unlock()`, "session crashed: fatal error: sync: unlock of unlocked mutex"},
		{"huge-allocation", `b := make([]byte, 8<<30); for i := 0; i < len(b); i += 4096 { b[i] = 1 }`, "session crashed:"},
		{"read-etc-passwd", `import "os"; _, err := os.ReadFile("/etc/passwd"); if err != nil { panic(err) }`, "permission denied"},
		{"write-other-session", `import "os"; err := os.WriteFile("../../` + other + `/files/x", []byte("x"), 0o644); if err != nil { panic(err) }`, "permission denied"},
		{"host-environ", fmt.Sprintf(`import "os"; _, err := os.ReadFile("/proc/%d/environ"); if err != nil { panic(err) }`, os.Getpid()), "error: "},
		{"os-exit", `import "os"; os.Exit(3)`, ""},
		{"import-os-exec", `import "os/exec"`, "not allowed"},
		{"import-unsafe", `import "unsafe"; var p unsafe.Pointer; _ = p`, "not allowed"}, // Sizeof etc. alone would run
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.Run(t, "alice", "eval --session "+id+" "+c.code, "")
			if r.Status == 0 || !strings.Contains(r.Stderr, c.wantErr) {
				t.Errorf("got %+v; want a failure with %q", r, c.wantErr)
			}
			if r := h.Run(t, "alice", "eval --session "+id+" kept", ""); r.Stdout != "42\n" {
				t.Errorf("after %s the session lost its state: %+v", c.name, r)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(h.Root, other, "files", "x")); !os.IsNotExist(err) {
		t.Errorf("the other session's files/x exists: %v", err)
	}
	// 1 GiB of output is cut with one notice; the session goes on.
	r := h.Run(t, "alice", `eval --session `+id+` import "strings"; s := strings.Repeat("x", 1<<20); for i := 0; i < 1024; i++ { print(s) }`, "")
	if len(r.Stdout)+len(r.Stderr) > 16<<20 || !strings.Contains(r.Stderr, "output truncated") {
		t.Errorf("1 GiB of output: %d bytes out, stderr %q; want it cut with a notice", len(r.Stdout), tail(r.Stderr))
	}
	stop()
	wg.Wait()
	if can.err != nil || can.beats < 10 {
		t.Errorf("canary: %d beats, %v", can.beats, can.err)
	}
	t.Logf("canary: %d beats, slowest %s", can.beats, can.slowest)
}

// Ctrl-C stops a runaway loop (the worker stays) and a native sleep (the
// worker is replaced and the session restored), each keeping the state.
func TestInterruptInWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	h := testhost.Start(t, testhost.Options{Process: true})
	term := h.Terminal(t, "alice", "")
	term.Expect("go> ")
	term.Send("kept := 7; kept\r")
	term.Expect(`\r\n7\r\n`)
	for _, cell := range []string{"for {}", `import "time"; time.Sleep(time.Hour)`} {
		term.Send(cell + "\r")
		term.Expect(regexp.QuoteMeta(cell) + `\r\n`) // the line as entered
		term.Interrupt()
		term.Send("kept\r")
		term.Expect(`\r\n7\r\n`)
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "..." + s[len(s)-300:]
	}
	return s
}
