package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/replhost/replhost/internal/workerbuild"
)

// helperHostEnv makes the test binary a host that starts that many workers,
// prints their pids and waits to be killed (TestNoWorkerOutlivesHost).
const helperHostEnv = "REPLHOST_TEST_HOST"

// helperRootEnv is the root directory of the helper host's sessions.
const helperRootEnv = "REPLHOST_TEST_ROOT"

// testMemory caps the test workers: small, so that memory bombs end fast.
const testMemory = 256 << 20

// workerBinEnv, set to 1, runs these tests with the worker binary
// (cmd/replhost-worker) built beside the test binary, where a host finds
// it as it finds it beside replhost: every worker started with Executable
// "" is then one of it.
const workerBinEnv = "REPLHOST_TEST_WORKER_BIN"

// The worker of these tests is the test binary itself, started again with
// WorkerEnv set, as the stdlib's exec tests do; with workerBinEnv, the
// worker binary.
func TestMain(m *testing.M) {
	if os.Getenv(WorkerEnv) != "" {
		os.Exit(WorkerMain())
	}
	if n := os.Getenv(helperHostEnv); n != "" {
		os.Exit(helperHost(n))
	}
	if os.Getenv(workerBinEnv) == "1" {
		os.Exit(withWorkerBinary(m))
	}
	code := m.Run()
	workerbuild.Cleanup()
	os.Exit(code)
}

// withWorkerBinary runs the tests with the worker binary beside the test
// binary.
func withWorkerBinary(m *testing.M) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	bin := filepath.Join(filepath.Dir(self), WorkerBinaryName)
	if err := workerbuild.Build(bin, ""); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.Remove(bin)
	defer workerbuild.Cleanup()
	return m.Run()
}

// testBinary is the test binary, for tests whose workers need its test
// hooks (proto_hook_test.go) whichever binary is the default.
func testBinary(tb testing.TB) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return exe
}

func helperHost(n string) int {
	count, _ := strconv.Atoi(n)
	root := os.Getenv(helperRootEnv)
	for range count {
		dir := filepath.Join(root, uuid.NewString())
		w, err := StartWorker(context.Background(), WorkerOptions{Dir: dir, Memory: testMemory})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(w.PID())
	}
	fmt.Println("ready")
	time.Sleep(time.Minute) // the test kills this process long before
	return 0
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	s.b.Reset()
	s.mu.Unlock()
}

// sessionDir makes ROOT/<uuid> with its files/ and classes/ under root.
func sessionDir(tb testing.TB, root string) string {
	tb.Helper()
	dir := filepath.Join(root, uuid.NewString())
	for _, sub := range []string{"files", "classes/src"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// startWorker starts a worker for a new session under root (a new root if
// ""), its stdout and stderr in one buffer; opts.Dir is set.
func startWorker(tb testing.TB, root string, opts WorkerOptions) (*Worker, *syncBuffer) {
	tb.Helper()
	if root == "" {
		root = tb.TempDir()
	}
	out := &syncBuffer{}
	if opts.Dir == "" {
		opts.Dir = sessionDir(tb, root)
	}
	if opts.Memory == 0 {
		opts.Memory = testMemory
	}
	opts.Stdout, opts.Stderr = out, out
	w, err := StartWorker(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w, out
}

func mustEval(tb testing.TB, w *Worker, cell string, show bool) {
	tb.Helper()
	if err := w.Eval(context.Background(), cell, show); err != nil {
		tb.Fatalf("Eval(%q): %v", cell, err)
	}
}
