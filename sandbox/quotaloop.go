package sandbox

import (
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replhost/replhost/internal/diskusage"
)

// diskSlots is how many times per diskTick the host's disk-watching loop
// wakes: each watcher is in one slot, looked at when its slot comes round,
// so the thousand reads a second of a thousand sessions come spread over
// the second, not in one burst that delays every cell typed then, and a
// wake-up goes through a tenth of the watchers.
const diskSlots = 10

// diskWatch is one worker's disk watcher: see watchDisk. Its fields are
// the loop's, but for those a walk sets (after walking is set, the walk's
// goroutine owns them until it clears walking).
type diskWatch struct {
	w         *Worker
	root      *os.Root
	stat      *statFile // nil: no CPU gate, walks at the pace of walkBackoff alone
	maxBytes  int64
	maxInodes int64
	walkedCPU uint64    // the worker's CPU at the last walk
	walked    time.Time // the last walk's start
	next      time.Time // no walk before (the backoff)
	slot      int       // its slot (guarded by diskWatchers.mu)
	walking   atomic.Bool
	gone      atomic.Bool // its worker ended: the walk running closes it
	closeOnce sync.Once
}

// diskWatchers is the host's one loop for all workers' disk watchers: a
// goroutine and a ticker each (a thousand of them) were about a fifth of
// the watchers' cost, and a thousand tickers in the runtime's timer heaps
// made every other timer's reset dearer. The loop runs while a watcher
// does.
type diskWatchers struct {
	mu      sync.Mutex // guards the fields below
	slots   [diskSlots][]*diskWatch
	of      map[*Worker]*diskWatch
	n       int // watchers in all slots
	slot    int // the slot the loop looks at next
	running bool
}

var hostDiskWatchers diskWatchers

// watchDisk stops the worker with QuotaExceeded when the session in dir
// holds more than its quota, counted by diskusage (what the upload check
// counts by too). A session already over its quota when the worker starts
// (a quota lowered, a restore) may run and delete, but not grow: the bound
// is then what it held at the start. RLIMIT_FSIZE (in the worker) stops a
// single file at the quota before the watcher sees it. The watcher ends
// with the worker.
func (w *Worker) watchDisk(dir string, disk int64) {
	go func() {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return
		}
		d := &diskWatch{w: w, root: root}
		d.maxBytes, d.maxInodes = quotaOf(disk)
		if stat, err := openStatFile(w.pid); err == nil {
			d.stat = stat
			d.walkedCPU, _ = stat.cpu() // a failure walks at the first look
		}
		d.walked = time.Now()
		if u, _, ok := d.walk(); ok {
			d.maxBytes, d.maxInodes = max(d.maxBytes, u.Bytes), max(d.maxInodes, u.Inodes)
		}
		hostDiskWatchers.add(d)
	}()
}

// add puts d in the slot the loop looked at last: its first look comes
// about a diskTick on.
func (ws *diskWatchers) add(d *diskWatch) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if d.w.diskForgotten { // it ended during the first walk: hold nothing past its end
		d.close()
		return
	}
	last := (ws.slot + diskSlots - 1) % diskSlots
	ws.slots[last] = append(ws.slots[last], d)
	d.slot = last
	if ws.of == nil {
		ws.of = make(map[*Worker]*diskWatch)
	}
	ws.of[d.w] = d
	ws.n++
	if !ws.running {
		ws.running = true
		go ws.run()
	}
}

// run looks at one slot's watchers every diskTick/diskSlots, each watcher
// once a diskTick, until none is left.
func (ws *diskWatchers) run() {
	t := time.NewTicker(diskTick / diskSlots)
	defer t.Stop()
	var due []*diskWatch
	for now := range t.C {
		var more bool
		due, more = ws.takeSlot(due[:0])
		for _, d := range due {
			d.look(now)
		}
		clear(due) // no hold on watchers that end
		if !more {
			return
		}
	}
}

// takeSlot appends the watchers of the next slot to due and drops those
// whose worker ended, closing what they hold. more is false when no
// watcher is left: the loop ends (add starts another).
func (ws *diskWatchers) takeSlot(due []*diskWatch) (_ []*diskWatch, more bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	slot := ws.slots[ws.slot]
	kept := slot[:0]
	for _, d := range slot {
		select {
		case <-d.w.dead: // it ended before its watcher joined
			if !d.walking.Load() {
				d.close()
				delete(ws.of, d.w)
				ws.n--
				continue
			}
		default:
			due = append(due, d)
		}
		kept = append(kept, d)
	}
	clear(slot[len(kept):])
	ws.slots[ws.slot] = kept
	ws.slot = (ws.slot + 1) % diskSlots
	if ws.n == 0 {
		ws.running = false
		return due, false
	}
	return due, true
}

// forget drops the watcher of w, which ended, and closes what it holds
// (once a walk running is done): the worker's exit calls it, so that
// nothing of a worker is left when it was waited for.
func (ws *diskWatchers) forget(w *Worker) {
	ws.mu.Lock()
	w.diskForgotten = true
	d := ws.of[w]
	if d != nil {
		delete(ws.of, w)
		slot := ws.slots[d.slot]
		if i := slices.Index(slot, d); i >= 0 {
			ws.slots[d.slot] = slices.Delete(slot, i, i+1)
			ws.n--
		}
	}
	ws.mu.Unlock()
	if d == nil {
		return
	}
	d.gone.Store(true)
	if !d.walking.Load() {
		d.close()
	}
}

// close closes what d holds; a look or a walk after it fails harmlessly
// (os.File and os.Root refuse use after Close).
func (d *diskWatch) close() {
	d.closeOnce.Do(func() {
		d.root.Close()
		if d.stat != nil {
			d.stat.Close()
		}
	})
}

func (d *diskWatch) walk() (diskusage.Usage, time.Duration, bool) {
	start := time.Now()
	u, err := diskusage.Of(d.root, ".", d.maxInodes+1)
	return u, time.Since(start), err == nil || err == diskusage.ErrTooMany
}

// look walks the session's tree if the worker used walkCPU of CPU since
// the last walk, or any and walkEvery passed, and no walk runs or backs
// off. The walk runs in a goroutine of its own: a big tree must not hold
// up the looks at every other worker.
func (d *diskWatch) look(now time.Time) {
	if d.gone.Load() || d.walking.Load() || now.Before(d.next) {
		return
	}
	if d.stat != nil {
		cpu, err := d.stat.cpu()
		if err == nil {
			used := cpu - d.walkedCPU
			if used == 0 || used < walkCPU && now.Sub(d.walked) < walkEvery {
				return
			}
			d.walkedCPU = cpu
		}
	}
	d.walked = now
	d.walking.Store(true)
	go func() {
		defer func() {
			d.walking.Store(false)
			if d.gone.Load() {
				d.close()
			}
		}()
		u, took, ok := d.walk()
		if !ok {
			return
		}
		if u.Over(d.maxBytes, d.maxInodes) {
			d.w.kill(QuotaExceeded)
			return
		}
		d.next = time.Now().Add(took * walkBackoff)
	}()
}
