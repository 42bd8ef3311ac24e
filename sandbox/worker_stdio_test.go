package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// startWorkerSplit starts a worker whose stdout and stderr are apart.
func startWorkerSplit(tb testing.TB, opts WorkerOptions) (w *Worker, stdout, stderr *syncBuffer) {
	tb.Helper()
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	opts.Dir = sessionDir(tb, tb.TempDir())
	if opts.Memory == 0 {
		opts.Memory = testMemory
	}
	opts.Stdout, opts.Stderr = stdout, stderr
	w, err := StartWorker(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w, stdout, stderr
}

const testingMainCell = `import "testing"
func TestOne(t *testing.T) { %s }
testing.Main(func(pat, str string) (bool, error) { return true, nil }, []testing.InternalTest{{Name: "TestOne", F: TestOne}}, nil, nil)`

// testing.Main is compiled code: it prints to the worker process's own
// stdout (fd 1) and calls os.Exit itself. Its output reaches the
// session's stdout and the cell ends with its exit status, as the program
// would, not as a crash.
func TestWorkerCompiledOutputAndExit(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
		code             int
	}{
		{"passing-test-exits-0", ``, "PASS\n", 0},
		{"failing-test-exits-1", `t.Fatal("no")`, "FAIL\n", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, stdout, _ := startWorkerSplit(t, WorkerOptions{})
			err := w.Eval(context.Background(), strings.Replace(testingMainCell, "%s", tt.body, 1), false)
			var exit *ExitError
			if !errors.As(err, &exit) || exit.Code != tt.code || !exit.Process {
				t.Fatalf("err = %v (%T); want an *ExitError of the process with code %d", err, err, tt.code)
			}
			if got := stdout.String(); !strings.HasSuffix(got, tt.want) {
				t.Errorf("stdout %q; want it to end with %q", got, tt.want)
			}
		})
	}
}

// os.Exit in a goroutine ends the program in Go: the worker exits with its
// status, after the output it held.
func TestWorkerGoroutineExitEndsTheProcess(t *testing.T) {
	w, stdout, _ := startWorkerSplit(t, WorkerOptions{})
	err := w.Eval(context.Background(), "import (\"fmt\"; \"os\"; \"time\")\nfmt.Println(\"before\")\ngo func() { os.Exit(3) }()\ntime.Sleep(time.Minute)", false)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 3 || !exit.Process {
		t.Fatalf("err = %v (%T); want an *ExitError of the process with code 3", err, err)
	}
	if got := stdout.String(); got != "before\n" {
		t.Errorf("stdout %q; want %q", got, "before\n")
	}
}

// A goroutine's panic ends the worker as it ends a Go program: Go's report
// on the session's stderr, the output before it kept, and the crash carries
// the exit status 2.
func TestWorkerGoroutinePanicStatus(t *testing.T) {
	w, stdout, stderr := startWorkerSplit(t, WorkerOptions{})
	err := w.Eval(context.Background(), "import (\"fmt\"; \"time\")\nfmt.Println(\"before\")\ngo func() { panic(\"gp\") }()\ntime.Sleep(time.Minute)", false)
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Status != 2 || crash.Reason != "panic: gp" {
		t.Fatalf("err = %v (%T); want a *CrashError of status 2 with reason panic: gp", err, err)
	}
	if errors.As(err, new(*ExitError)) {
		t.Errorf("err = %v is an *ExitError; a panic is a crash", err)
	}
	if got := stdout.String(); got != "before\n" {
		t.Errorf("stdout %q; want %q", got, "before\n")
	}
	if got := stderr.String(); !strings.HasPrefix(got, "panic: gp\n\ngoroutine ") {
		t.Errorf("stderr %q; want Go's report of the panic", got)
	}
}

// What compiled code writes to fd 2 (debug.PrintStack) comes before the
// interpreted output written after it, and all of it before Eval returns.
func TestWorkerCompiledStderrInOrder(t *testing.T) {
	w, _, stderr := startWorkerSplit(t, WorkerOptions{})
	mustEval(t, w, "import (\"fmt\"; \"os\"; \"runtime/debug\")\ndebug.PrintStack()\nfmt.Fprintln(os.Stderr, \"after\")", false)
	got := stderr.String()
	trace, after := strings.Index(got, "goroutine "), strings.Index(got, "after\n")
	if trace < 0 || after < trace {
		t.Errorf("stderr %q; want the stack trace, then after", got)
	}
}

// What the worker writes to its own descriptors counts against the
// request's output cap on the host, as its frames do: hostile input,
// bounded.
func TestWorkerCompiledOutputIsCapped(t *testing.T) {
	const limit = 64 << 10
	w, stdout, stderr := startWorkerSplit(t, WorkerOptions{OutputCap: limit})
	mustEval(t, w, "import \"runtime/debug\"\nfor i := 0; i < 2000; i++ { debug.PrintStack() }", false)
	got := stderr.String()
	if len(got) > limit+hostCapSlack+100 || !strings.HasSuffix(got, "output truncated at 64KiB by the host\n") {
		t.Errorf("stderr: %d bytes ending %q; want at most the cap and the host's notice", len(got), tail(got, 60))
	}
	mustEval(t, w, "import \"fmt\"\nfmt.Println(\"next\")", false)
	if got := stdout.String(); got != "next\n" {
		t.Errorf("the next cell's stdout %q; want next (the cap is per request)", got)
	}
}
