package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// StartWorker starts a worker process for the session of opts and returns
// when it is ready to evaluate: confined, in its session directory.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	w, err := spawnWorkerIn(ctx, opts.Executable, opts.Args, opts.StartTimeout, !opts.noCgroup)
	if err != nil {
		return nil, err
	}
	if err := w.configure(ctx, opts, startTimeout(opts.StartTimeout)); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func startTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultStartTimeout
	}
	return d
}

// spawnWorker starts a worker process and waits for its handshake. The
// worker is idle and unconfined until configure, but in a cgroup of the
// pool's (see memLimit).
func spawnWorker(ctx context.Context, exe string, args []string, timeout time.Duration) (*Worker, error) {
	return spawnWorkerIn(ctx, exe, args, timeout, true)
}

func spawnWorkerIn(ctx context.Context, exe string, args []string, timeout time.Duration, cgroups bool) (*Worker, error) {
	exe, args, err := workerBinary(exe, args)
	if err != nil {
		return nil, err
	}
	pin, err := pinBinary(exe)
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	if pin.asksSources() {
		// Hashing its sources maps ~1 MB of the binary into the worker
		// that does it: a probe does, and ends.
		probe, err := spawnPinned(ctx, exe, args, timeout, false, pin, true)
		if err != nil {
			return nil, err
		}
		probe.Close()
	}
	return spawnPinned(ctx, exe, args, timeout, cgroups, pin, false)
}

// spawnPinned starts a worker of the binary pin describes; askSources has
// its handshake report its sources (binaryPin.check).
func spawnPinned(ctx context.Context, exe string, args []string, timeout time.Duration, cgroups bool, pin *binaryPin, askSources bool) (*Worker, error) {
	timeout = startTimeout(timeout)
	closeInheritedOnExec()
	host, hostOut, childIn, childProto, err := protoSockets()
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	outPipe, errPipe, childOut, childErr, err := newStdioPipes()
	if err != nil {
		host.Close()
		hostOut.Close()
		childIn.Close()
		childProto.Close()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	cmd := workerCommand(exe, args, askSources, childIn, childProto, childOut, childErr)
	err = startProcess(cmd)
	childIn.Close()
	childProto.Close()
	childOut.Close()
	childErr.Close()
	if err != nil {
		host.Close()
		hostOut.Close()
		outPipe.close()
		errPipe.close()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w := &Worker{
		cmd:         cmd,
		pid:         cmd.Process.Pid,
		exe:         exe,
		conn:        host,
		connOut:     hostOut,
		fw:          &frameWriter{w: hostOut},
		dec:         newHostDecoder(host),
		log:         errPipe.log,
		stdio:       [2]*stdioPipe{outPipe, errPipe},
		ready:       make(chan struct{}),
		dead:        make(chan struct{}),
		replies:     make(chan event, 1),
		completions: make(chan event, 1),
		udfCredits:  make(chan struct{}, udfWindow),
		stdout:      io.Discard,
		stderr:      io.Discard,
	}
	w.mem = limitMemory(w.pid, poolGroup, limits{DefaultMemory, DefaultMaxThreads}, cgroups, w.kill)
	readerDone := make(chan struct{})
	for _, p := range w.stdio {
		go p.run(w)
	}
	go w.read(readerDone)
	go w.wait(readerDone)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.ready:
		if err := pin.check(w.hello, exe, askSources); err != nil {
			w.kill("handshake refused")
			<-w.dead
			return nil, fmt.Errorf("start worker: %w", err)
		}
		return w, nil
	case <-w.dead:
		return nil, fmt.Errorf("start worker: exited before ready: %s", w.crashReason())
	case <-t.C:
		w.kill("not ready within " + timeout.String())
	case <-ctx.Done():
		w.kill("start canceled")
	}
	<-w.dead
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("start worker: not ready within %v", timeout)
}

// closeInheritedOnExec marks every descriptor of the host close-on-exec,
// once: Go opens its own so, but one the host inherited without the flag
// (from its own parent) would pass to every worker, where code could
// reopen it through /proc/self/fd.
var closeInheritedOnExec = sync.OnceFunc(markCloseOnExec)

func markCloseOnExec() {
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}

// configure gives an idle worker its session: output writers, memory cap,
// then the init request, on which the worker confines itself. A worker
// that does not answer within timeout is ended.
func (w *Worker) configure(ctx context.Context, opts WorkerOptions, timeout time.Duration) error {
	if opts.Dir == "" {
		return errors.New("sandbox: WorkerOptions.Dir is required")
	}
	if err := CheckEnv(opts.Env); err != nil {
		return err
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	var ids *IDs
	if opts.Users != nil {
		id, err := opts.Users.ids(dir)
		if err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
		ids = &id
	}
	// Landlock grants access to what exists when the worker confines
	// itself.
	if err := prepareSession(dir, ids); err != nil {
		return err
	}
	memory := opts.Memory
	if memory <= 0 {
		memory = DefaultMemory
	}
	threads := opts.MaxThreads
	if threads <= 0 {
		threads = DefaultMaxThreads
	}
	disk := opts.Disk
	switch {
	case disk == 0:
		disk = DefaultDisk
	case disk < 0:
		disk = 0
	}
	outputCap := opts.OutputCap
	switch {
	case outputCap == 0:
		outputCap = DefaultOutputCap
	case outputCap < 0:
		outputCap = 0
	}
	w.mu.Lock()
	w.stdout, w.stderr = orDiscard(opts.Stdout), orDiscard(opts.Stderr)
	w.memory = memory
	w.outCap = outputCap
	w.mu.Unlock()

	w.opMu.Lock()
	defer w.opMu.Unlock()
	init := initMsg{
		Dir:       dir,
		Allow:     opts.Allow.extra,
		Net:       netAllowed(opts.Allow) && !opts.denyNet,
		Memory:    memory,
		OutputCap: outputCap,
		Disk:      disk,
		Env:       opts.Env,
	}
	if ids != nil {
		init.UID, init.GID = ids.UID, ids.GID
	}
	id := w.dec.begin(msgInitDone, 0)
	if err := w.fw.send(msgInit, id, mustJSON(init)); err != nil {
		return fmt.Errorf("init worker: %w", w.crashError())
	}
	// The session's cgroup is made while the worker confines itself: no
	// code runs before configure returns, and until then the pool's
	// limits hold it.
	if err := w.mem.move(groupOf(opts.Group), limits{memory, int64(threads)}); err != nil {
		return fmt.Errorf("worker limits: %w", err)
	}
	ev, err := w.awaitWithin(ctx, timeout, "init")
	if err != nil {
		return fmt.Errorf("init worker: %w", err)
	}
	if ev.text != "" {
		return fmt.Errorf("init worker: %s", ev.text)
	}
	if disk > 0 {
		go w.watchDisk(dir, disk)
	}
	return nil
}

// warm has an idle worker make and drop an interpreter, which makes
// configure about twice as fast. A worker that does not answer within
// timeout is ended.
func (w *Worker) warm(ctx context.Context, timeout time.Duration) error {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	id := w.dec.begin(msgWarmDone, 0)
	if err := w.fw.send(msgWarm, id, nil); err != nil {
		return w.crashError()
	}
	_, err := w.awaitWithin(ctx, timeout, "warm")
	return err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
