package sandbox

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// protocolSockets takes the protocol's sockets from fd 3 (requests, read)
// and fd 4 (the worker's frames, written; see protoSockets) and moves each
// to a random descriptor above 256, close-on-exec, closing fd 3 and fd 4.
// The code's symbol tables offer no way to turn a number into a descriptor
// (os.NewFile, reflect.NewAt and the net.File* functions are left out, see
// allow.go): this is the second line, so that code that found one still has
// to guess the numbers, and a descriptor the code opens later never is one
// of the protocol's.
//
// The requests' socket is made non-blocking, so that it is on the
// runtime's poller: the worker runs on one P (workerProcs), and a reader
// blocked in read(2) held that P in a system call until sysmon took it
// back (one to two of its ticks, 20 µs each plus the kernel's 50 µs timer
// slack) to run the cell the request had just started: ~0.1-0.3 ms of
// every round trip. The frames' socket stays blocking, off the poller
// (nothing reads it here).
func protocolSockets() (in, out *os.File, err error) {
	inFd, err := moveProtoFd(3)
	if err != nil {
		return nil, nil, err
	}
	outFd, err := moveProtoFd(4)
	if err != nil {
		unix.Close(inFd)
		return nil, nil, err
	}
	if err := unix.SetNonblock(inFd, true); err != nil {
		unix.Close(inFd)
		unix.Close(outFd)
		return nil, nil, fmt.Errorf("protocol socket: %w", err)
	}
	return os.NewFile(uintptr(inFd), "replhost-proto-in"), os.NewFile(uintptr(outFd), "replhost-proto-out"), nil
}

// moveProtoFd moves the protocol socket at fd to a random descriptor
// above 256, close-on-exec, and closes fd.
func moveProtoFd(fd int) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return -1, fmt.Errorf("no protocol socket on fd %d", fd)
	}
	floor := 256
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur > 512 {
		var b [4]byte
		rand.Read(b[:])
		span := min(lim.Cur, 1<<16) - 257
		floor = 256 + int(uint64(binary.BigEndian.Uint32(b[:]))%span)
	}
	moved, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, floor)
	if err != nil {
		moved, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	}
	if err != nil {
		return -1, fmt.Errorf("move protocol socket: %w", err)
	}
	unix.Close(fd)
	return moved, nil
}
