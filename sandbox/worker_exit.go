package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once the process pid (a child not yet reaped) has
// exited, waiting on the runtime's poller: os.Process.Wait blocks an OS
// thread in waitid for each child, so a host with a thousand workers held
// a thousand threads. A pidfd is readable once its process exits. On any
// error it returns at once and the caller's Wait blocks as before.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd") // non-blocking, so pollable
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// Read resets the poller's readiness before its first call of the
	// function, so an exit that came before it would be missed: each call
	// asks the pidfd itself and waits only while the process runs.
	rc.Read(func(fd uintptr) bool { return exited(int(fd)) })
}

// exited reports whether the pidfd fd is readable (its process exited),
// without blocking.
func exited(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(p, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || n > 0 // on an error, return: the caller's Wait blocks
	}
}
