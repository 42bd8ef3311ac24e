package sandbox

import (
	"runtime/debug"
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

	mu       sync.Mutex // guards the fields below
	timer    *time.Timer
	busy     int   // requests running
	dirty    bool  // a request ran since the last release
	releases int64 // releases done, for the stats message
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
	debug.FreeOSMemory()
	r.mu.Lock()
	r.releases++
	r.mu.Unlock()
}

// count is the number of releases done.
func (r *idleReleaser) count() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.releases
}
