package sandbox

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcPacer sets a worker's GOGC from its live heap after each collection,
// so that the garbage between collections is about gcHeadroom while the
// live heap is small, and the live heap (Go's default of 100) once it is
// larger: never more collection work per allocated byte than Go's default,
// and at most ceiling (gcPercent, the cap's). A fixed GOGC of 400 let a
// session's heap run to five times what it keeps, and a long-lived object
// allocated among the garbage keeps its whole span after the collection:
// a worker that ran 1,500 shown expressions held 8 MiB of spans for
// 1.7 MiB of live objects. Safe for concurrent use.
type gcPacer struct {
	ceiling  int    // largest GOGC; 0: the pacer is off
	headroom uint64 // garbage allowed between collections (gcHeadroom)

	mu     sync.Mutex // guards the fields below
	cycles uint64     // collections seen at the last adjust
	pct    int        // GOGC set last; 0 before the first adjust
}

// gcHeadroom is the garbage a worker may hold between collections while
// its live heap is smaller than that. Measured per cell
// (BenchmarkWorkerCellGrowth, 1,500 cells): 2 MiB against 4 MiB made no
// difference to a declaring session (its live heap soon passes both) and
// shown expressions grew 2.7 against 3.9 KB a cell at +20 % worker CPU.
const gcHeadroom = 4 << 20

// gcFloor is the lowest GOGC the pacer sets: Go's default. Lower (50) saved
// another ~1.4 KB per declared cell at ~+15 % worker CPU, and costs a
// session with a large live heap twice the collection work it does in Go.
const gcFloor = 100

// gcMinHeap is the runtime's smallest heap goal at GOGC 100 (its
// heapMinimum, scaled by GOGC/100): a smaller heap collects at that.
const gcMinHeap = 4 << 20

// gcPercentFor is GOGC for a live heap of live bytes: headroom bytes of
// garbage in percent of it, within gcFloor and ceiling.
func gcPercentFor(live, headroom uint64, ceiling int) int {
	if live == 0 {
		return ceiling
	}
	pct := min(headroom*100/live, (live+headroom)*100/gcMinHeap)
	return int(min(max(pct, gcFloor), uint64(ceiling)))
}

// adjust sets GOGC from the live heap if a collection ran since the last
// call; otherwise it costs one runtime/metrics read. Before any collection
// it takes all that was allocated as live (an over-estimate: less garbage
// is allowed, not more).
func (p *gcPacer) adjust() {
	if p == nil || p.ceiling == 0 {
		return
	}
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return // not this runtime's metrics: keep GOGC as it is
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cycles, live := s[0].Value.Uint64(), s[1].Value.Uint64()
	if cycles == p.cycles && p.pct != 0 {
		return
	}
	p.cycles = cycles
	if cycles == 0 {
		live = s[2].Value.Uint64()
	}
	if pct := gcPercentFor(live, p.headroom, p.ceiling); pct != p.pct {
		p.pct = pct
		debug.SetGCPercent(pct)
	}
}

// percent is the GOGC the pacer set last; 0 when off or nil.
func (p *gcPacer) percent() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pct
}

// gcPacer is the worker's pacer, nil before init.
func (ws *workerSide) gcPacer() *gcPacer {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.gc
}
