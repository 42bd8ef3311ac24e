package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hostileCase is one file of testdata/hostile: a cell and its outcome.
type hostileCase struct {
	name    string
	code    string
	want    string // ok, error, exit, crash, interrupted, interrupted-restored, truncated
	arg     string // the text the outcome must contain
	allow   []string
	denyNet bool
	raw     bool // the code gets replhost.test/raw: it reached the socket
}

var headerLine = regexp.MustCompile(`^// (want|allow|landlock|hook): (\S+)(?: "([^"]*)")?$`)

func loadHostile(tb testing.TB, vars map[string]string) []hostileCase {
	tb.Helper()
	files, err := filepath.Glob("testdata/hostile/*.cell")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no hostile cases: %v", err)
	}
	var cases []hostileCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		c := hostileCase{name: strings.TrimSuffix(filepath.Base(f), ".cell"), code: string(b)}
		for _, line := range strings.Split(c.code, "\n") {
			m := headerLine.FindStringSubmatch(line)
			switch {
			case m == nil:
			case m[1] == "want":
				c.want, c.arg = m[2], m[3]
			case m[1] == "allow":
				c.allow = append(c.allow, m[2])
			case m[1] == "landlock":
				c.denyNet = m[2] == "deny-net"
			case m[1] == "hook":
				c.raw = m[2] == "raw"
			}
		}
		if c.want == "" {
			tb.Fatalf("%s: no // want: line", f)
		}
		for k, v := range vars {
			c.code = strings.ReplaceAll(c.code, "{{"+k+"}}", v)
		}
		cases = append(cases, c)
	}
	return cases
}

// hostileJournal is what each hostile session evaluated before its case:
// replayed into a new worker when the case ended the first one.
var hostileJournal = []string{"keep := 40", "keep++"}

// TestHostileCorpus runs every case of testdata/hostile in a session of its
// own while a canary session of the same root counts on. Each case must
// end as its file says, leave the session usable (restored where its
// worker died) and leave the other sessions alone.
func TestHostileCorpus(t *testing.T) {
	root := t.TempDir()
	other := sessionDir(t, root)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cases := loadHostile(t, map[string]string{
		"OTHER":   other,
		"HOSTPID": strconv.Itoa(os.Getpid()),
		"ADDR":    ln.Addr().String(),
		// The id of the case's eval: after init and hostileJournal.
		"ID": strconv.Itoa(2 + len(hostileJournal)),
	})
	c := startCanary(t, root)
	for _, hc := range cases {
		t.Run(hc.name, func(t *testing.T) { runHostile(t, root, hc) })
	}
	c.stop(t)
	if entries, _ := os.ReadDir(filepath.Join(other, "files")); len(entries) != 0 {
		t.Errorf("another session's files changed: %v", entries)
	}
}

func runHostile(t *testing.T, root string, hc hostileCase) {
	opts := WorkerOptions{Dir: sessionDir(t, root), Allow: NewAllowlist(hc.allow), denyNet: hc.denyNet, Users: testUsers, Disk: testDisk, MaxThreads: DefaultMaxThreads}
	if hc.raw {
		opts.Executable, opts.Args = testBinary(t), []string{"worker", rawFramesArg}
	}
	w, out := startWorker(t, root, opts)
	for _, cell := range hostileJournal {
		mustEval(t, w, cell, false)
	}
	ctx := context.Background()
	if strings.HasPrefix(hc.want, "interrupted") {
		ctx = interruptAfter(t, out, "started\n")
	}
	err := w.Eval(ctx, hc.code, true)
	var (
		ev    *EvalError
		ee    *ExitError
		crash *CrashError
	)
	crashed := errors.As(err, &crash)
	switch hc.want {
	case "ok":
		if err != nil {
			t.Errorf("err = %v; want nil", err)
		}
	case "error":
		if !errors.As(err, &ev) || !strings.Contains(ev.Msg, hc.arg) {
			t.Errorf("err = %v (%T); want an *EvalError containing %q", err, err, hc.arg)
		}
	case "exit":
		if !errors.As(err, &ee) || strconv.Itoa(ee.Code) != hc.arg {
			t.Errorf("err = %v; want an *ExitError with code %s", err, hc.arg)
		}
	case "crash":
		if !crashed || !strings.Contains(crash.Reason, hc.arg) {
			t.Errorf("err = %v; want a *CrashError whose reason contains %q", err, hc.arg)
		}
		if proto := strings.HasPrefix(hc.arg, "protocol error: "); proto != errors.Is(err, ErrProtocol) {
			t.Errorf("errors.Is(%v, ErrProtocol) = %v; want %v", err, !proto, proto)
		}
	case "interrupted":
		if !errors.Is(err, context.Canceled) || crashed {
			t.Errorf("err = %v; want context.Canceled and the worker kept", err)
		}
	case "interrupted-restored":
		if !errors.Is(err, context.Canceled) || !crashed {
			t.Errorf("err = %v; want context.Canceled and a *CrashError", err)
		}
	case "truncated":
		got := out.String()
		if err != nil || !strings.HasSuffix(got, hc.arg+"\n") || len(got) > DefaultOutputCap+hostCapSlack+len(hc.arg)+2 {
			t.Errorf("err = %v, %d bytes of output ending %q; want nil and %d bytes then %q", err, len(got), tail(got, 40), DefaultOutputCap, hc.arg)
		}
	default:
		t.Fatalf("unknown outcome %q", hc.want)
	}
	t.Logf("outcome: %v", err)
	if crashed {
		// As the repl does: a new worker for the same session, the
		// journal replayed with its output discarded.
		opts.Stdout, opts.Stderr, opts.Memory = out, out, testMemory
		w2, err := StartWorker(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w2.Close()
		for _, cell := range hostileJournal {
			if err := w2.Eval(context.Background(), cell, false); err != nil {
				t.Fatalf("replay %q: %v", cell, err)
			}
		}
		w = w2
	}
	out.Reset()
	mustEval(t, w, "keep+1", true)
	if got := out.String(); got != "42\n" {
		t.Errorf("after the case: keep+1 shows %q; want 42", got)
	}
}

// canary is a session of another user that counts every 50 ms while the
// hostile cases run: each beat must answer with the next number, from the
// same worker process.
type canary struct {
	w    *Worker
	pid  int
	quit chan struct{}
	done chan struct{}

	mu    sync.Mutex // guards the fields below
	beats int
	slow  time.Duration // the longest beat
	errs  []string
}

func startCanary(t *testing.T, root string) *canary {
	w, out := startWorker(t, root, WorkerOptions{Users: testUsers, Group: "canary"})
	mustEval(t, w, "n := 0", false)
	c := &canary{w: w, pid: w.PID(), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.quit:
				return
			case <-tick.C:
			}
			out.Reset()
			start := time.Now()
			err := w.Eval(context.Background(), "n++\nn", true)
			took := time.Since(start)
			c.mu.Lock()
			c.beats++
			c.slow = max(c.slow, took)
			if want := fmt.Sprintf("%d\n", c.beats); err != nil || out.String() != want {
				c.errs = append(c.errs, fmt.Sprintf("beat %d: %q, %v; want %q", c.beats, out.String(), err, want))
			}
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *canary) stop(t *testing.T) {
	close(c.quit)
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("canary: %d beats, the slowest %v", c.beats, c.slow)
	if c.beats == 0 {
		t.Error("canary never beat")
	}
	for _, e := range c.errs {
		t.Errorf("canary: %s", e)
	}
	if c.w.PID() != c.pid || c.w.usable() != nil {
		t.Errorf("canary worker changed or ended: %v", c.w.usable())
	}
}
