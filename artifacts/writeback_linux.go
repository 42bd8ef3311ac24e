package artifacts

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing [off, off+n) of f to disk
// now, without waiting, so that the fsync at Commit has little left to do
// and an upload's disk writes overlap its transfer.
func startWriteback(f *os.File, off, n int64) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) {
			unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
		})
	}
}
