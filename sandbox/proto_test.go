package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A worker of another build is refused at the handshake, with what to do.
func TestHandshakeRefusesAnotherBuild(t *testing.T) {
	_, err := StartWorker(context.Background(), WorkerOptions{
		Dir:        sessionDir(t, t.TempDir()),
		Executable: testBinary(t),
		Args:       []string{"worker", otherBuildArg},
	})
	if err == nil || !strings.Contains(err.Error(), `build "another-build"`) || !strings.Contains(err.Error(), "restart the host") {
		t.Fatalf("err = %v; want the builds named and what to do", err)
	}
}

// A journal whose cells JSON would escape six-fold (the old encoding made
// one frame too large and the journal was cut) replays whole, in frames
// that fit; a cell larger than any frame is ErrCellTooLarge at its index,
// after the cells before it ran.
func TestReplayChunksOnEncodedBytes(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	big := strings.Repeat("<&>", 140<<10) // 420 KiB; 2.5 MiB as JSON
	cells := []string{
		"v1 := len(`" + big + "`)",
		"v2 := len(`" + big + "`)",
		"v3 := len(`" + big + "`)",
	}
	n, err := w.Replay(context.Background(), cells)
	if n != 3 || err != nil {
		t.Fatalf("Replay = %d, %v; want 3, nil", n, err)
	}
	mustEval(t, w, "v1 + v2 + v3", true)
	if got, want := out.String(), strconv.Itoa(3*len(big))+"\n"; got != want {
		t.Errorf("shows %q; want %q", got, want)
	}
	// A cell of 1 MiB, as large as the repl takes (repl.MaxCell), replays.
	mib := "s := `" + strings.Repeat("a", 1<<20-len("s := ``")) + "`"
	if n, err := w.Replay(context.Background(), []string{mib, mib}); n != 2 || err != nil {
		t.Fatalf("Replay of two 1 MiB cells = %d, %v; want 2, nil", n, err)
	}
	tooBig := "x := `" + strings.Repeat("a", maxFrame) + "`"
	n, err = w.Replay(context.Background(), []string{"ok1 := 1", tooBig, "ok2 := 2"})
	if n != 1 || !errors.Is(err, ErrCellTooLarge) {
		t.Fatalf("Replay = %d, %v; want 1, ErrCellTooLarge", n, err)
	}
	out.Reset()
	mustEval(t, w, "ok1", true)
	if out.String() != "1\n" {
		t.Errorf("ok1 shows %q", out.String())
	}
}

// Every chunk of a replay fits in a frame, whatever the cells.
func TestReplayChunkFits(t *testing.T) {
	for _, size := range []int{0, 1, 1000, maxFrame/2 - 4, maxFrame - 8, maxFrame - 7, maxCell} {
		cells := []string{strings.Repeat("a", size), strings.Repeat("b", size), "c"}
		for done := 0; done < len(cells); {
			n, alone := replayChunk(cells[done:])
			if alone {
				if n != 1 || len(cells[done]) <= maxFrame-8 {
					t.Errorf("size %d: cell %d sent alone", size, done)
				}
			} else if got := len(encodeReplay(cells[done : done+n])); got > maxFrame {
				t.Errorf("size %d: chunk of %d bytes", size, got)
			}
			done += n
		}
	}
	got, err := decodeReplay(encodeReplay([]string{"a", "", "b\x00c"}))
	if err != nil || strings.Join(got, "|") != "a||b\x00c" {
		t.Errorf("decodeReplay = %q, %v", got, err)
	}
}

// A replay reply forged by code that reached the socket (a record count
// out of bounds) ends the worker with ErrProtocol, and Replay's index
// stays within the journal.
func TestForgedReplayReplyEndsWorker(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{Executable: testBinary(t), Args: []string{"worker", rawFramesArg}})
	cells := []string{"x := 1", "import \"replhost.test/raw\"\nraw.Frame('r', 2, `{\"Kind\":\"eval\",\"Records\":1000000}`)\nselect {}", "y := 2"}
	n, err := w.Replay(context.Background(), cells)
	var crash *CrashError
	if !errors.As(err, &crash) || !errors.Is(err, ErrProtocol) || !strings.Contains(crash.Reason, "protocol error: result of 1000000 records for a request of 3") {
		t.Fatalf("Replay err = %v; want a protocol *CrashError", err)
	}
	if n < 0 || n > len(cells) {
		t.Errorf("Replay index %d out of the journal", n)
	}
}

// A result forged with the right id is taken for the cell's (the code
// chose its own outcome), and the real one that follows, a reply with no
// request in flight, ends the worker.
func TestReplyWithNoRequestEndsWorker(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{Executable: testBinary(t), Args: []string{"worker", rawFramesArg}})
	if err := w.Eval(context.Background(), "import \"replhost.test/raw\"\nraw.Frame('r', 2, `{\"Kind\":\"ok\"}`)", false); err != nil {
		t.Fatalf("Eval = %v; want the forged ok", err)
	}
	<-w.dead
	err := w.crashError()
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "protocol error: reply 'r' with no request in flight") {
		t.Errorf("err = %v; want the protocol error", err)
	}
	if err := w.Eval(context.Background(), "1", false); !errors.Is(err, ErrProtocol) {
		t.Errorf("next Eval = %v; want the protocol *CrashError", err)
	}
}

// An idle pool worker that was stopped does not answer init: it is killed
// and the session gets another worker.
func TestPoolReplacesStoppedIdleWorker(t *testing.T) {
	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	idle := <-p.idle
	if err := syscall.Kill(idle.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.idle <- idle
	out := &syncBuffer{}
	w, err := p.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, t.TempDir()), Memory: testMemory, Stdout: out})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.PID() == idle.PID() {
		t.Fatal("Get returned the stopped worker")
	}
	mustEval(t, w, "1+1", true)
	if out.String() != "2\n" {
		t.Errorf("shows %q", out.String())
	}
	<-idle.dead // killed, and reaped
	if reason := idle.crashReason(); !strings.Contains(reason, "init not answered") {
		t.Errorf("the stopped worker ended with %q", reason)
	}
}

// Close ends a stopped worker and a spinning one; a request in flight
// returns ErrClosed.
func TestCloseStoppedOrSpinningWorker(t *testing.T) {
	stopped, _ := startWorker(t, "", WorkerOptions{})
	if err := syscall.Kill(stopped.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped.Close()
	if running(stopped.PID()) {
		t.Error("the stopped worker still runs after Close")
	}
	spinning, out := startWorker(t, "", WorkerOptions{})
	done := make(chan error, 1)
	go func() {
		_, err := spinning.Replay(context.Background(), []string{`import "fmt"; fmt.Println("started"); for {}`})
		done <- err
	}()
	<-interruptAfter(t, out, "started\n").Done() // the cell spins

	spinning.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Replay during Close = %v; want ErrClosed", err)
	}
}

// An interrupted replay returns at once with the cells that ran, the
// worker kept.
func TestReplayInterrupted(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	ctx := interruptAfter(t, out, "started\n")
	n, err := w.Replay(ctx, []string{"a := 1", `import "fmt"; fmt.Println("started"); for {}`, "b := 2"})
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Replay = %d, %v; want 1, context.Canceled", n, err)
	}
	out.Reset()
	mustEval(t, w, "a", true)
	if out.String() != "1\n" {
		t.Errorf("a shows %q", out.String())
	}
}

// An uploaded package sees the same symbol tables as a cell: no
// os.NewFile.
func TestUploadedPackageCannotReachDescriptors(t *testing.T) {
	root := t.TempDir()
	opts := WorkerOptions{Dir: sessionDir(t, root), Memory: testMemory}
	src := filepath.Join(opts.Dir, "classes", "src", "evil")
	os.MkdirAll(src, 0o755)
	code := "package evil\n\nimport \"os\"\n\nfunc Send() { os.NewFile(3, \"x\").Write([]byte(\"forged\")) }\n"
	if err := os.WriteFile(filepath.Join(src, "evil.go"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := StartWorker(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Eval(context.Background(), "import \"evil\"\nevil.Send()", false)
	var ev *EvalError
	if !errors.As(err, &ev) || !strings.Contains(ev.Msg, "NewFile") {
		t.Errorf("err = %v; want an *EvalError about NewFile", err)
	}
}

// A descriptor the host inherited without close-on-exec does not reach a
// worker.
func TestWorkerInheritsNoDescriptors(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	markCloseOnExec() // as the first start of a worker does
	var st unix.Stat_t
	unix.Fstat(p[0], &st)
	w, out := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, `import ("fmt"; "os")
for fd := 0; fd < 4096; fd++ {
	if l, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil {
		fmt.Println(l)
	}
}`, false)
	if pipe := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"; strings.Contains(out.String(), pipe) {
		t.Errorf("the worker holds the host's %s:\n%s", pipe, out.String())
	}
}
