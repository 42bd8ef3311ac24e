package sandbox

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// idleRelease is how long a worker waits, after its last request ended,
// before it gives its free memory back to the kernel. A worker sits idle
// at a prompt most of its life, and with GOGC above 100 (gcPercent) its
// heap holds several times the live data in garbage until the next
// collection. Longer than the bench's load mode's second between cells, so
// that a session typing steadily pays no forced collection per cell.
const idleRelease = 2 * time.Second

// idleReleaser collects and returns memory once a worker has been idle for
// its delay: once per idle spell, never in a loop. Safe for concurrent use.
type idleReleaser struct {
	delay time.Duration
	// worth says whether a release would give enough back (heapSlack);
	// nil: always. A worker's first full collection maps the collector's
	// metadata (~0.4 MiB), more than a session that ran a small cell has
	// in garbage.
	worth func() bool

	mu       sync.Mutex // guards the fields below
	timer    *time.Timer
	busy     int   // requests running
	dirty    bool  // a request ran since the last release
	releases int64 // releases done, for the stats message
	checks   int64 // idle spells looked at, released or not
}

// begin marks a request running: no release until it ends.
func (r *idleReleaser) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy++
	if r.timer != nil {
		r.timer.Stop()
	}
}

// end marks a request ended; the last one arms the release.
func (r *idleReleaser) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy--
	r.dirty = true
	if r.busy > 0 {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.release)
		return
	}
	r.timer.Reset(r.delay)
}

// release gives the heap's free pages back, if nothing ran since the last
// time and no request runs now. debug.FreeOSMemory collects first.
func (r *idleReleaser) release() {
	r.mu.Lock()
	if r.busy > 0 || !r.dirty {
		r.mu.Unlock()
		return
	}
	r.dirty = false
	r.mu.Unlock()
	worth := r.worth == nil || r.worth()
	if worth {
		debug.FreeOSMemory()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks++
	if worth {
		r.releases++
	}
}

// count is the number of releases done.
func (r *idleReleaser) count() int64 {
	n, _ := r.counts()
	return n
}

// counts are the number of releases done and of idle spells looked at.
func (r *idleReleaser) counts() (releases, checks int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.releases, r.checks
}

// releaseMin is the heap slack below which an idle worker keeps its memory.
const releaseMin = 1 << 20

// firstReleaseMin is releaseMin for a worker that never collected: its
// first collection maps the collector's metadata, and the ~1 MiB a
// worker allocated by the end of a small first cell (none of it collected
// yet) came back as less than that costs (measured: +0.15 MiB of PSS).
const firstReleaseMin = 2 << 20

// heapSlack reports whether the heap holds enough that a release would
// give back (slackWorth), from runtime/metrics.
func heapSlack() bool {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return true // not this runtime's metric: release
		}
	}
	return slackWorth(s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64())
}

// slackWorth reports whether a heap of objects bytes, live bytes at the
// last of its cycles collections and free bytes not yet returned holds at
// least releaseMin (firstReleaseMin before any collection) to give back:
// what was allocated since the last collection (mostly garbage at a
// prompt) and the free pages.
func slackWorth(objects, live, free, cycles uint64) bool {
	least := uint64(releaseMin)
	if cycles == 0 {
		least = firstReleaseMin
	}
	return objects-min(live, objects)+free >= least
}
