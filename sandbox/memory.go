package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMemory is a worker's memory cap when WorkerOptions.Memory is 0.
const DefaultMemory = 512 << 20

// rssPoll is how often the host looks at a worker's RSS when no cgroup
// holds it.
const rssPoll = 100 * time.Millisecond

// memLimit holds a worker's kernel limits from the host: a cgroup of its
// own (memory, pids, cpu: see cgroup), where the kernel kills the worker at
// its memory cap and refuses threads past its cap, or else, where no
// cgroup can be made, a goroutine that reads the worker's RSS and kills it
// over the cap. Inside, the worker also sets debug.SetMemoryLimit a little
// below the cap so that the collector works hard before the kill.
// RLIMIT_AS is not used: the Go runtime reserves far more address space
// than it uses.
//
// An idle pool worker gets the pool's cgroup; move puts it in its
// session's when it gets one.
type memLimit struct {
	pid     int
	kill    func(reason string)
	limit   atomic.Int64
	threads atomic.Int64  // the thread cap, for the reason
	stop    chan struct{} // closed by release: ends the watcher
	watched chan struct{} // closed when the watcher has ended

	mu       sync.Mutex // guards cg and released
	cg       cgroup     // nil when watching RSS
	released bool
	once     sync.Once
}

// limitMemory puts process pid under the limits l, in a cgroup of group
// if cgroups; kill ends the process with a reason, for the watcher.
func limitMemory(pid int, group string, l limits, cgroups bool, kill func(reason string)) *memLimit {
	m := &memLimit{pid: pid, kill: kill, stop: make(chan struct{}), watched: make(chan struct{})}
	m.limit.Store(l.memory)
	m.threads.Store(l.threads)
	if cgroups {
		if cg, err := hostCgroups.newCgroup(group, pid, l); err == nil {
			m.cg = cg
			close(m.watched)
			return m
		}
	}
	go m.watch()
	return m
}

// move gives the worker new limits in group. Without a cgroup only the
// cap watched changes.
func (m *memLimit) move(group string, l limits) error {
	m.limit.Store(l.memory)
	m.threads.Store(l.threads)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cg == nil || m.released {
		return nil
	}
	return hostCgroups.regroup(m.cg, group, l)
}

// cgroup is the worker's cgroup, nil if none.
func (m *memLimit) cgroup() cgroup {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cg
}

func (m *memLimit) watch() {
	defer close(m.watched)
	t := time.NewTicker(rssPoll)
	defer t.Stop()
	statm := fmt.Sprintf("/proc/%d/statm", m.pid)
	page := int64(os.Getpagesize())
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		b, err := os.ReadFile(statm)
		if err != nil {
			return // the process is gone
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			continue
		}
		pages, _ := strconv.ParseInt(fields[1], 10, 64)
		if limit := m.limit.Load(); pages*page > limit {
			m.kill(capReason(limit))
			return
		}
	}
}

func capReason(limit int64) string { return "killed at memory cap " + formatBytes(limit) }

// limitReason says which of its cgroup's limits ended the worker, once it
// ended: "" if none. The Go runtime dies when it cannot make a thread
// ("fatal error: newosproc", in a dump that names no reason).
func (m *memLimit) limitReason() string {
	cg := m.cgroup()
	switch {
	case cg == nil:
		return ""
	case cg.oomKilled():
		return capReason(m.limit.Load())
	case cg.threadCapHit():
		return fmt.Sprintf("stopped at thread cap %d", m.threads.Load())
	}
	return ""
}

// release ends the watcher or removes the cgroup; call it once the
// process has been waited for. It is safe to call twice.
func (m *memLimit) release() {
	m.once.Do(func() {
		close(m.stop)
		<-m.watched
		m.mu.Lock()
		defer m.mu.Unlock()
		m.released = true
		if m.cg != nil {
			hostCgroups.release(m.cg)
		}
	})
}

func hasWord(list, word, sep string) bool {
	for _, w := range strings.Split(list, sep) {
		if w == word {
			return true
		}
	}
	return false
}

// gcPercent is a worker's GOGC for a memory cap: an interpreter's live heap
// is a few MiB and yaegi allocates heavily per cell, so at Go's default of
// 100 the worker spent 31-48 % of its CPU collecting. The memory limit
// (90 % of the cap) bounds the heap whatever GOGC says; 400 lets a 4 MiB
// live heap grow to 20 MiB between collections. Caps under 64 MiB keep the
// default, so that a small cap is not reached by garbage. It is the
// ceiling: gcPacer lowers GOGC as the live heap grows.
func gcPercent(memory int64) int {
	if memory < 64<<20 {
		return 100
	}
	return 400
}

// maxStack is the largest goroutine stack of a worker under a memory cap
// of memory bytes: half of it, at most Go's own default of 1 GB.
// Interpreted recursion is deep (yaegi's frames are large: Go's
// test/peano.go needs a 256 MiB stack), and a stack grows by copying
// into one twice its size, so the last growth below the limit holds
// three quarters of the cap at once: the next one fails with "goroutine
// stack exceeds", before the cap kills the worker. A race-built worker
// keeps an eighth: the race detector shadows every stack byte with more.
func maxStack(memory int64) int {
	if raceBuild {
		return int(min(memory/8, 1<<30))
	}
	return int(min(memory/2, 1<<30))
}
