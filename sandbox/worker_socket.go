package sandbox

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// protocolSocket takes the protocol socket from fd 3 and moves it to a
// random descriptor above 256, close-on-exec, closing fd 3. The code's
// symbol tables offer no way to turn a number into a descriptor
// (os.NewFile, reflect.NewAt and the net.File* functions are left out, see
// allow.go): this is the second line, so that code that found one still has
// to guess the number, and a descriptor the code opens later never is fd 3's
// socket.
//
// The socket is made non-blocking, so that it is on the runtime's poller:
// the worker runs on one P (workerProcs), and a reader blocked in read(2)
// held that P in a system call until sysmon took it back (one to two of its
// ticks, 20 µs each plus the kernel's 50 µs timer slack) to run the cell
// the request had just started: ~0.1-0.3 ms of every round trip.
func protocolSocket() (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(3, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, fmt.Errorf("no protocol socket on fd 3")
	}
	floor := 256
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur > 512 {
		var b [4]byte
		rand.Read(b[:])
		span := min(lim.Cur, 1<<16) - 257
		floor = 256 + int(uint64(binary.BigEndian.Uint32(b[:]))%span)
	}
	fd, err := unix.FcntlInt(3, unix.F_DUPFD_CLOEXEC, floor)
	if err != nil {
		fd, err = unix.FcntlInt(3, unix.F_DUPFD_CLOEXEC, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("move protocol socket: %w", err)
	}
	unix.Close(3)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("protocol socket: %w", err)
	}
	return os.NewFile(uintptr(fd), "replhost-proto"), nil
}
