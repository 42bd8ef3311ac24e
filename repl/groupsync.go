package repl

import (
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The fsyncs of the journals of all sessions are batched host-wide: a cell
// is on disk for a killed host once its write returns (the page cache
// outlives the process), and the fsync that covers a power loss may follow.
// One goroutine syncs in rounds: it waits syncGather for appends to gather,
// then fsyncs each journal appended to, or, when many were, calls syncfs
// once per filesystem. A thousand sessions at a cell a second made a
// thousand fsyncs a second (a fifth of the host's CPU per cell); now about
// 1/syncGather syncfs calls.
const (
	syncGather = 50 * time.Millisecond
	syncfsFrom = 4 // journals in a round from which one syncfs replaces their fsyncs
)

type groupSync struct {
	mu      sync.Mutex
	dirty   map[*Journal]bool
	running bool
}

var journalSync = &groupSync{dirty: map[*Journal]bool{}}

// mark schedules j's fsync in the next round.
func (g *groupSync) mark(j *Journal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dirty[j] = true
	if !g.running {
		g.running = true
		go g.run()
	}
}

func (g *groupSync) run() {
	for {
		time.Sleep(syncGather) // gather appends: no caller waits on it (Journal.Sync syncs itself)
		g.mu.Lock()
		batch := g.dirty
		if len(batch) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.dirty = map[*Journal]bool{}
		g.mu.Unlock()
		syncRound(batch)
	}
}

// syncRound syncs the journals of batch that are still unsynced.
func syncRound(batch map[*Journal]bool) {
	if len(batch) < syncfsFrom {
		for j := range batch {
			j.syncNow()
		}
		return
	}
	// Hold each journal's syncMu across the syncfs, so that a Sync that
	// comes meanwhile waits for it rather than returning early.
	byDev := map[uint64][]*Journal{}
	for j := range batch {
		j.syncMu.Lock()
		if !j.unsynced.Swap(false) {
			j.syncMu.Unlock()
			continue
		}
		byDev[j.dev.Load()] = append(byDev[j.dev.Load()], j)
	}
	for _, js := range byDev {
		synced := false
		for _, j := range js {
			if seg := j.current.Load(); seg != nil && syncfs(seg) == nil {
				synced = true
				break
			}
		}
		for _, j := range js {
			if !synced {
				// syncfs failed (or every segment was closed): fsync each.
				if seg := j.current.Load(); seg != nil {
					seg.Sync()
				}
			}
			j.syncMu.Unlock()
		}
	}
}

// syncfs flushes the filesystem that holds f. A file closed meanwhile (a
// journal released or rewritten, which syncs its own) fails harmlessly:
// os.File guards its descriptor.
func syncfs(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	return serr
}

// fileDev is the device of the filesystem that holds fi's file.
func fileDev(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
