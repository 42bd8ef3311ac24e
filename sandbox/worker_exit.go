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
	asked := false
	rc.Read(func(uintptr) bool { // first call: wait for readable; second: done
		done := asked
		asked = true
		return done
	})
}
