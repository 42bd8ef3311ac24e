package sandbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
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

// parseProcCPU reads utime+stime from the text of /proc/<pid>/stat.
func parseProcCPU(b []byte) (uint64, error) {
	if bytes.LastIndexByte(b, ')') < 0 {
		return 0, errors.New("short /proc stat")
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc stat")
	}
	return u + s, nil
}

// quotaOf returns the bytes and inodes a quota allows, by the rule the
// upload check counts by too.
func quotaOf(disk int64) (bytes, inodes int64) { return disk, diskusage.InodesFor(disk) }

// watchDisk stops the worker with QuotaExceeded when the session in dir
// holds more than its quota, counted by diskusage (what the upload check
// counts by too). A session already over its quota when the worker starts
// (a quota lowered, a restore) may run and delete, but not grow: the bound
// is then what it held at the start. RLIMIT_FSIZE (in the worker) stops a
// single file at the quota before the watcher sees it. The watcher ends
// with the worker.
func (w *Worker) watchDisk(dir string, disk int64) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer root.Close()
	maxBytes, maxInodes := quotaOf(disk)
	walk := func() (diskusage.Usage, time.Duration, bool) {
		start := time.Now()
		u, err := diskusage.Of(root, ".", maxInodes+1)
		return u, time.Since(start), err == nil || err == diskusage.ErrTooMany
	}
	if u, _, ok := walk(); ok {
		maxBytes, maxInodes = max(maxBytes, u.Bytes), max(maxInodes, u.Inodes)
	}
	stat, statErr := openStatFile(w.pid)
	if statErr == nil {
		defer stat.Close()
	}
	var walkedCPU uint64 // the worker's CPU at the last walk
	walked := time.Now()
	next := walked
	t := time.NewTicker(diskTick)
	defer t.Stop()
	for {
		select {
		case <-w.dead:
			return
		case <-t.C:
		}
		if time.Now().Before(next) {
			continue
		}
		if statErr != nil {
			// No CPU gate: walk at the pace of walkBackoff alone.
		} else if cpu, err := stat.cpu(); err == nil {
			used := cpu - walkedCPU
			if used == 0 || used < walkCPU && time.Since(walked) < walkEvery {
				continue
			}
			walkedCPU = cpu
		}
		walked = time.Now()
		u, took, ok := walk()
		if !ok {
			continue
		}
		if u.Over(maxBytes, maxInodes) {
			w.kill(QuotaExceeded)
			return
		}
		next = time.Now().Add(took * walkBackoff)
	}
}
