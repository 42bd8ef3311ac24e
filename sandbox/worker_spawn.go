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

// workerCommand is the command of a worker process: the protocol sockets
// are its fd 3 (requests) and fd 4 (its frames), its own stdout and stderr are the pipes stdout and stderr (see
// stdioPipe), it runs in a process group
// of its own from the root directory (until init moves it to its session),
// and it gets SIGKILL when the thread that started it exits.
// askSources has it report its sources in its handshake (binaryPin).
func workerCommand(exe string, args []string, askSources bool, protoIn, protoOut, stdout, stderr *os.File) *exec.Cmd {
	return &exec.Cmd{
		Path:       exe,
		Args:       append([]string{exe}, args...),
		Env:        workerEnv(askSources),
		Dir:        "/",
		ExtraFiles: []*os.File{protoIn, protoOut},
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

// protoSockets returns the protocol's two sockets, one a direction, as
// the host's ends (in: the worker's frames, non-blocking on the runtime's
// poller so that closing it ends a blocked read; out: requests, blocking,
// off the poller) and the worker's (its fd 3 for requests, fd 4 for its
// frames). One socket a direction: on a socket both ends use, every read
// by one side signals write space (EPOLLOUT) to the other's epoll, where
// Go registers every descriptor, so each frame woke the sender's idle
// netpoller once for nothing. A socket that is only written from the
// host's side is kept off the poller; the worker's writing end is
// blocking too. The ends each side does not use are shut down. All are
// close-on-exec here, so no other worker inherits them.
func protoSockets() (hostIn, hostOut, workerIn, workerOut *os.File, err error) {
	req, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	rep, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		unix.Close(req[0])
		unix.Close(req[1])
		return nil, nil, nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	err = unix.SetNonblock(rep[0], true)
	for _, sd := range [][2]int{{req[0], unix.SHUT_RD}, {req[1], unix.SHUT_WR}, {rep[0], unix.SHUT_WR}, {rep[1], unix.SHUT_RD}} {
		if err == nil {
			err = unix.Shutdown(sd[0], sd[1])
		}
	}
	if err != nil {
		for _, fd := range []int{req[0], req[1], rep[0], rep[1]} {
			unix.Close(fd)
		}
		return nil, nil, nil, nil, fmt.Errorf("protocol sockets: %w", err)
	}
	return os.NewFile(uintptr(rep[0]), "replhost-proto-in"), os.NewFile(uintptr(req[0]), "replhost-proto-out"),
		os.NewFile(uintptr(req[1]), "replhost-proto-worker-in"), os.NewFile(uintptr(rep[1]), "replhost-proto-worker-out"), nil
}
