package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/replhost/replhost/internal/yaegix"
	"golang.org/x/sys/unix"
)

// WorkerEnv is set in a worker's environment, which holds only settings of
// the Go runtime and of yaegi besides: nothing of the host's environment reaches a worker. A
// binary that finds it set is a worker and calls WorkerMain; the sandbox
// tests' TestMain does, since their worker is the test binary.
const WorkerEnv = "REPLHOST_WORKER"

// workerNiceStep is how far below the host's CPU priority workers run, so
// a busy session cannot starve the host's SSH handling. It is relative: a
// host started under `nice` keeps its workers below itself.
const workerNiceStep = 10

// workerNice returns the nice value for workers of a host running at
// hostNice: workerNiceStep below it, at most 19 (the lowest).
func workerNice(hostNice int) int {
	return min(hostNice+workerNiceStep, 19)
}

// threadNice returns the calling thread's nice value. The raw syscall
// answers 20-nice, not glibc's nice.
func threadNice() (int, error) {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	return 20 - prio, err
}

func workerEnv(askSources bool) []string {
	env := []string{
		WorkerEnv + "=1",
		// net.Listen uses Multipath TCP by default since Go 1.24, which
		// Landlock's TCP rules do not cover: plain TCP keeps them in force.
		// No heap profile is read from a worker: without memprofilerate=0
		// the samples of the binary's package init (before WorkerMain can
		// turn profiling off) map the profiler's 1.4 MiB hash table, ~80 KB
		// of it touched.
		"GODEBUG=multipathtcp=0,memprofilerate=0",
		workerProcs,
		"GOTRACEBACK=single",
		// yaegi then binds the code's os.Stdout and os.Stderr to the
		// interpreter's writers (typed io.Writer) instead of leaving them
		// the process's fd 1 and 2, which the user never sees.
		yaegix.SpecialStdio,
	}
	if askSources {
		env = append(env, workerSourcesVar+"=1")
	}
	return append(env, raceEnv...)
}

// workerCommand is the command of a worker process: the protocol socket is
// its fd 3, its own stdout and stderr are the pipes stdout and stderr (see
// stdioPipe), it runs in a process group
// of its own from the root directory (until init moves it to its session),
// and it gets SIGKILL when the thread that started it exits.
// askSources has it report its sources in its handshake (binaryPin).
func workerCommand(exe string, args []string, askSources bool, proto, stdout, stderr *os.File) *exec.Cmd {
	return &exec.Cmd{
		Path:       exe,
		Args:       append([]string{exe}, args...),
		Env:        workerEnv(askSources),
		Dir:        "/",
		ExtraFiles: []*os.File{proto},
		Stdout:     stdout,
		Stderr:     stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,
			Pdeathsig: syscall.SIGKILL,
		},
	}
}

// The spawner starts every worker from one goroutine locked to one OS
// thread that never exits. Pdeathsig fires when the parent *thread* exits,
// not the process: a worker started from an ordinary goroutine would be
// killed whenever the runtime retires that thread. Locked for good, the
// thread lives as long as the host, so workers die with the host and only
// then. The thread also runs at workerNice, which a forked child inherits,
// and so do all threads the child creates.
var (
	spawnOnce sync.Once
	spawnReqs chan spawnReq
)

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startProcess starts cmd on the spawner thread.
func startProcess(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan spawnReq)
		ready := make(chan struct{})
		go spawnLoop(ready)
		<-ready
	})
	done := make(chan error, 1)
	spawnReqs <- spawnReq{cmd, done}
	return <-done
}

func spawnLoop(ready chan<- struct{}) {
	runtime.LockOSThread() // never unlocked: see spawnReqs
	hostNice, niceErr := threadNice()
	if niceErr == nil {
		niceErr = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), workerNice(hostNice))
	}
	close(ready)
	for r := range spawnReqs {
		if niceErr != nil {
			r.done <- fmt.Errorf("lower worker priority: %w", niceErr)
			continue
		}
		r.done <- r.cmd.Start()
	}
}

// socketPair returns the two ends of the protocol socket: the host's, in
// non-blocking mode so that closing it ends a blocked read, and the
// worker's, to be passed as its fd 3. Both are close-on-exec here, so no
// other worker inherits them.
func socketPair() (host, worker *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "replhost-proto"), os.NewFile(uintptr(fds[1]), "replhost-proto-worker"), nil
}
