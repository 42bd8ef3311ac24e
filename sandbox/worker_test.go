package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWorkerEvalShowsValues(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	tests := []struct {
		name  string
		cells []string
		want  string
	}{
		{"expression", []string{"1+2"}, "3\n"},
		{"import-then-call-on-one-line", []string{`import "fmt"; fmt.Println(1)`}, "1\n"},
		{"state-across-cells", []string{"x := 41", "x++", "x"}, "42\n"},
		{"values-in-order-with-output", []string{`1; fmt.Println("a"); 2`}, "1\na\n2\n"},
		{"stdout-and-stderr-in-order", []string{`import "os"`, `fmt.Print("o1 "); fmt.Fprint(os.Stderr, "e1 "); fmt.Print("o2 "); 3`}, "o1 e1 o2 3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out.Reset()
			for _, c := range tt.cells {
				mustEval(t, w, c, true)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("output %q; want %q", got, tt.want)
			}
		})
	}
}

func TestWorkerErrors(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	tests := []struct {
		name string
		cell string
		want string
	}{
		{"undefined-at-user-position", "x := 1\n\n   y + 1", "3:4: undefined: y"},
		{"denied-import", `import "os/exec"`, `1:8: package os/exec is not allowed`},
		{"panic-with-position", `panic("boom")`, "1:1: panic: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.Eval(context.Background(), tt.cell, true)
			var ev *EvalError
			if !errors.As(err, &ev) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (%T); want *EvalError containing %q", err, err, tt.want)
			}
			mustEval(t, w, "1", false) // the session goes on
		})
	}
	err := w.Eval(context.Background(), "import \"os\"\nos.Exit(3)", false)
	if ee := (*ExitError)(nil); !errors.As(err, &ee) || ee.Code != 3 {
		t.Errorf("os.Exit(3): err = %v; want ExitError 3", err)
	}
}

func TestWorkerComplete(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, "import \"strings\"\nfunc myFunc() {}\nmyVar := 1", false)
	for word, want := range map[string]string{"my": "myFunc myVar", "strings.ToU": "strings.ToUpper strings.ToUpperSpecial", "zzz": ""} {
		if got := strings.Join(w.Complete(word), " "); got != want {
			t.Errorf("Complete(%q) = %q; want %q", word, got, want)
		}
	}
}

// startedSoon prints "started" a little after the cell that follows it
// began: an interrupt sent then finds that cell running. (An interrupt that
// comes between two units of a cell stops it before the next unit.)
const startedSoon = "go func() {\n\ttime.Sleep(200 * time.Millisecond)\n\tfmt.Println(\"started\")\n}()"

// interruptAfter returns a context canceled once the worker wrote mark,
// so that the cell is known to run when the interrupt comes.
func interruptAfter(t *testing.T, out *syncBuffer, mark string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for i := 0; i < 1000 && !strings.Contains(out.String(), mark); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return ctx
}

func TestWorkerInterruptLoopKeepsState(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, "import (\"fmt\"; \"time\")\nn := 5", false)
	pid := w.PID()
	mustEval(t, w, startedSoon, false)
	err := w.Eval(interruptAfter(t, out, "started"), `for {}`, false)
	if !errors.Is(err, context.Canceled) || errors.As(err, new(*CrashError)) {
		t.Fatalf("err = %v; want context.Canceled and no crash", err)
	}
	out.Reset()
	mustEval(t, w, "n", true)
	if got := out.String(); got != "5\n" || w.PID() != pid {
		t.Errorf("after interrupt: %q in pid %d; want 5 in pid %d", got, w.PID(), pid)
	}
}

func TestWorkerInterruptNativeBlockEndsWorker(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, `import ("fmt"; "time")`, false)
	mustEval(t, w, startedSoon, false)
	err := w.Eval(interruptAfter(t, out, "started"), `time.Sleep(time.Hour)`, false)
	var crash *CrashError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &crash) {
		t.Fatalf("err = %v; want context.Canceled and a *CrashError", err)
	}
	if !strings.Contains(crash.Reason, "did not stop") {
		t.Errorf("reason %q; want it to say the cell did not stop", crash.Reason)
	}
	if err := w.Eval(context.Background(), "1", false); !errors.As(err, &crash) {
		t.Errorf("Eval after the end: %v; want a *CrashError", err)
	}
}

func TestWorkerCloseTwice(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	pid := w.PID()
	for i := 0; i < 2; i++ {
		if err := w.Close(); err != nil {
			t.Errorf("Close #%d: %v", i+1, err)
		}
	}
	if err := w.Eval(context.Background(), "1", false); !errors.Is(err, ErrClosed) {
		t.Errorf("Eval after Close: %v; want ErrClosed", err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("worker %d still exists after Close", pid)
	}
}

func TestWorkerProcess(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	pid := w.PID()
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Split(strings.TrimRight(string(env), "\x00"), "\x00"), workerEnv(false); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("worker environment %q; want only %q", got, want)
	}
	base, err := startNice, startNiceErr
	if err != nil {
		t.Fatal(err)
	}
	hostNice := strconv.Itoa(base)
	stat := procStat(t, pid)
	if pgid := stat[4]; pgid != strconv.Itoa(pid) {
		t.Errorf("process group %s; want its own, %d", pgid, pid)
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		if nice := statFields(string(b))[18]; nice != strconv.Itoa(workerNice(base)) {
			t.Errorf("thread %s: nice %s; want %d", task.Name(), nice, workerNice(base))
		}
	}
	// Only the host's spawner thread is lowered with the workers (unless
	// the host already runs at the lowest priority).
	wantLowered := 1
	if workerNice(base) == base {
		wantLowered = 0
	}
	lowered := 0
	hostTasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range hostTasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/stat")
		if err == nil && statFields(string(b))[18] != hostNice {
			lowered++
		}
	}
	if lowered != wantLowered {
		t.Errorf("host: %d threads below the host's nice %s; want %d, the spawner's", lowered, hostNice, wantLowered)
	}
}

// startNice is the test process's nice value before any spawner thread
// lowered itself (that thread may be the main one, whose value
// /proc/self/stat shows).
var startNice, startNiceErr = threadNice()

// procStat returns the fields of /proc/pid/stat, field 1 (pid) at index 0.
func procStat(tb testing.TB, pid int) []string {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	return statFields(string(b))
}

func statFields(stat string) []string {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(stat, ')')
	return append([]string{stat[:strings.IndexByte(stat, ' ')], "comm"}, strings.Fields(stat[i+1:])...)
}

func TestWorkerMemoryCgroup(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	w, _ := startWorker(t, "", WorkerOptions{Memory: 200 << 20})
	dir := cgroupDir(t, w, "memory")
	if want := "-" + strconv.Itoa(w.PID()); !strings.HasSuffix(dir, want) {
		t.Fatalf("cgroup dir %q; want one ending in %q", dir, want)
	}
	limit, err := os.ReadFile(filepath.Join(dir, "memory.limit_in_bytes"))
	if got := strings.TrimSpace(string(limit)); err != nil || got != strconv.Itoa(200<<20) {
		t.Errorf("memory.limit_in_bytes = %q, %v; want %d", got, err, 200<<20)
	}
	w.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s after Close: %v; want it removed", dir, err)
	}
}

func TestWorkerWorkingDirIsSessionFiles(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	dir := filepath.Dir(strings.TrimSuffix(w.sessionFiles(t), "/"))
	if err := os.WriteFile(filepath.Join(dir, "files", "data.txt"), []byte("uploaded"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustEval(t, w, "import \"os\"\nb, err := os.ReadFile(\"data.txt\")\nstring(b)\nerr", true)
	if got, want := out.String(), "\"uploaded\"\n<nil>\n"; got != want {
		t.Errorf("relative read: %q; want %q", got, want)
	}
}

// sessionFiles returns the worker's working directory as the kernel has it.
func (w *Worker) sessionFiles(tb testing.TB) string {
	tb.Helper()
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", w.pid))
	if err != nil {
		tb.Fatal(err)
	}
	return cwd
}

func TestWorkerOutputCap(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{OutputCap: 1000})
	mustEval(t, w, `import ("fmt"; "strings")`, false)
	mustEval(t, w, "i := 0\nfor i < 100 { fmt.Print(strings.Repeat(\"x\", 99)); i++ }\nfmt.Println(\"end\")", false)
	want := strings.Repeat("x", 1000) + "\noutput truncated at 1000B\n"
	if got := out.String(); got != want {
		t.Errorf("flood: %d bytes ending %q; want %d bytes ending %q", len(got), tail(got, 40), len(want), tail(want, 40))
	}
	out.Reset()
	mustEval(t, w, `fmt.Println("next cell")`, false)
	if got := out.String(); got != "next cell\n" {
		t.Errorf("next cell: %q; want the cap reset", got)
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

func TestWorkerCrashBetweenCells(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, `import "time"`, false)
	mustEval(t, w, "go func() {\n\ttime.Sleep(100 * time.Millisecond)\n\tpanic(\"late\")\n}()", false)
	<-w.dead
	var crash *CrashError
	if err := w.Eval(context.Background(), "1", false); !errors.As(err, &crash) || !strings.Contains(crash.Reason, "panic: late") {
		t.Errorf("Eval after a crash between cells: %v; want a *CrashError with panic: late", err)
	}
	if got := w.Complete("ti"); got != nil {
		t.Errorf("Complete on a dead worker: %q; want nil", got)
	}
}

func TestWorkerCloseDuringEval(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	done := make(chan error, 1)
	go func() {
		done <- w.Eval(context.Background(), "import \"fmt\"\nfmt.Println(\"started\")\nfor {\n}", false)
	}()
	for i := 0; i < 1000 && !strings.Contains(out.String(), "started"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := w.Complete("fm"); strings.Join(got, " ") != "fmt" {
		t.Errorf("Complete while a cell runs: %q; want fmt", got)
	}
	w.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Eval in flight during Close: %v; want ErrClosed", err)
	}
}

func TestWorkerMemoryWatcherKills(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{noCgroup: true})
	if cg := w.mem.cgroup(); cg != nil {
		t.Fatalf("worker in cgroup %s; want the RSS watcher", cg.path())
	}
	err := w.Eval(context.Background(), "var s []int\nchunk := make([]int, 1<<16)\nfor {\n\ts = append(s, chunk...)\n}", false)
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Reason != "killed at memory cap 256MiB" {
		t.Errorf("err = %v; want a crash killed at memory cap 256MiB", err)
	}
}

func TestStartWorkerFailures(t *testing.T) {
	tests := []struct {
		name string
		exe  string
		args []string
		want string
	}{
		{"exits-before-ready", "/bin/sh", []string{"-c", "echo 'fatal error: no luck' >&2; exit 3"}, "exited before ready: fatal error: no luck"},
		{"never-ready", "/bin/sleep", []string{"10"}, "not ready within 200ms"},
		{"not-found", "/nonexistent/replhost", nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := StartWorker(context.Background(), WorkerOptions{Dir: t.TempDir(), Executable: tt.exe, Args: tt.args, StartTimeout: 200 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("StartWorker = %v, %v; want an error containing %q", w, err, tt.want)
			}
		})
	}
	if _, err := StartWorker(context.Background(), WorkerOptions{}); err == nil {
		t.Error("StartWorker without Dir: no error")
	}
}

func TestLandlockAvailable(t *testing.T) {
	if err := LandlockAvailable(); err != nil {
		t.Errorf("LandlockAvailable() = %v; this machine has Landlock ABI 7", err)
	}
}

func TestCrashLogReason(t *testing.T) {
	tests := []struct {
		name, log, want string
	}{
		{"stack-overflow-prefers-the-limit", "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc0200e0390 stack=[0xc0200e0000, 0xc0400e0000]\nfatal error: stack overflow\n\ngoroutine 1 [running]:\n", "runtime: goroutine stack exceeds 1000000000-byte limit"},
		{"fatal-error", "fatal error: concurrent map writes\n\ngoroutine 9 [running]:\nmain.f()\n", "fatal error: concurrent map writes"},
		{"panic", "panic: x [recovered, repanicked]\n\ngoroutine 7 [running]:\n", "panic: x [recovered, repanicked]"},
		{"out-of-memory", "runtime: out of memory: cannot allocate 8589934592-byte block (3997696 in use)\nfatal error: out of memory\n", "fatal error: out of memory"},
		{"fatal-signal-before-registers", "SIGTRAP: trace trap\nPC=0x47d5e1 m=0 sigcode=128\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x6d3a40 [running]:\nrax    0x0\ngs     0x0\n", "SIGTRAP: trace trap"},
		{"signal-word-is-no-signal", "SIGNALS: none\nthe end\n", "the end"},
		{"last-line-without-reason", "something\nthe end\n", "the end"},
		{"partial-line", "no newline", "no newline"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCrashLog()
			for _, b := range []byte(tt.log) { // byte by byte: lines span writes
				c.Write([]byte{b})
			}
			if got := c.Reason(); got != tt.want {
				t.Errorf("Reason() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4MiB", 512 << 20: "512MiB", 1 << 30: "1GiB", 1536: "1536B", 3 << 10: "3KiB", 1000: "1000B"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q; want %q", n, got, want)
		}
	}
}
