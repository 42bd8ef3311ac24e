package sandbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/replhost/replhost/internal/diskusage"
)

// DefaultDisk is a session's disk quota when WorkerOptions.Disk is 0.
const DefaultDisk = 1 << 30

// QuotaExceeded is the reason a worker is stopped for when its session
// passes its disk quota.
const QuotaExceeded = "disk quota exceeded"

// Disk watcher pacing: a look at most every diskTick, and a walk of the
// tree only when the worker used walkCPU clock ticks of CPU since the last
// walk (it cannot write or create files without: the kernel's time for
// them is the worker's system time), or any CPU and walkEvery passed; and
// no sooner after a walk than walkBackoff times what it took. A session
// that is idle costs one small read of its /proc stat per tick, a busy one
// with a big tree at most 1/walkBackoff of a core. 20 ms of CPU writes some
// tens of MiB or creates some thousands of files: what a session may pass
// its quota by. A walk after every cell that used CPU was ~15 % of the
// host's CPU with a thousand sessions typing a cell a second.
const (
	diskTick    = time.Second
	walkBackoff = 50
	walkCPU     = 2 // clock ticks (USER_HZ 100): 20 ms
	walkEvery   = 30 * time.Second
)

// statFile reads a process's CPU time from its /proc/<pid>/stat, opened
// once: a pread per look, not an open, a read and a close with their path
// walk through procfs (a tenth of the host's CPU with 300 sessions typing).
// The descriptor stays the process's: a pid reused after it ended is not
// read.
type statFile struct {
	f   *os.File
	buf []byte
}

func openStatFile(pid int) (*statFile, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	return &statFile{f: f, buf: make([]byte, 1024)}, nil
}

func (p *statFile) Close() error { return p.f.Close() }

// cpu is the CPU time the process used so far, in clock ticks.
func (p *statFile) cpu() (uint64, error) {
	n, err := p.f.ReadAt(p.buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return parseProcCPU(p.buf[:n])
}

// parseProcCPU reads utime+stime from the text of /proc/<pid>/stat,
// without allocating (it runs once a second per worker).
func parseProcCPU(b []byte) (uint64, error) {
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, errors.New("short /proc stat")
	}
	var sum uint64
	field, in, digits := 0, false, 0
	var n uint64
	for _, c := range b[end+1:] {
		if c == ' ' || c == '\n' {
			if in && (field == 12 || field == 13) {
				if digits == 0 {
					return 0, errors.New("bad /proc stat")
				}
				sum += n
				if field == 13 {
					return sum, nil
				}
			}
			in = false
			continue
		}
		if !in {
			in, field, n, digits = true, field+1, 0, 0
		}
		if field == 12 || field == 13 {
			if c < '0' || c > '9' || digits >= 19 {
				return 0, errors.New("bad /proc stat")
			}
			n, digits = n*10+uint64(c-'0'), digits+1
		}
	}
	if in && field == 13 && digits > 0 {
		return sum + n, nil
	}
	return 0, errors.New("short /proc stat")
}

// quotaOf returns the bytes and inodes a quota allows, by the rule the
// upload check counts by too.
func quotaOf(disk int64) (bytes, inodes int64) { return disk, diskusage.InodesFor(disk) }
