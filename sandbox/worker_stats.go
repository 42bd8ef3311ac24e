package sandbox

import (
	"context"
	"time"
)

// WorkerStats are what a worker counts of itself.
type WorkerStats struct {
	// IdleReleases is how many times it gave its free memory back to the
	// kernel after idling (see idleRelease).
	IdleReleases int64
	// SharedTables is the number of the process's standard symbol tables
	// still held beside the session interpreter's own: 0 once the session's
	// interpreter is made (see dropSharedTables).
	SharedTables int
	// IdleChecks is how many idle spells it looked at, whether it gave
	// memory back or found too little to (IdleReleases counts those).
	IdleChecks int64
	// GCPercent is its GOGC: set from its live heap after each collection
	// (see gcPacer); 0 before its session's init.
	GCPercent int
}

// statsWait bounds the wait for a stats reply: the worker answers it from
// its reading goroutine, beside a running cell.
const statsWait = 5 * time.Second

// Stats asks the worker for its figures. It waits for a request in flight
// (Eval, a UDF call) to end first: requests go one at a time. A worker that
// does not answer within statsWait is ended.
func (w *Worker) Stats() (WorkerStats, error) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return WorkerStats{}, err
	}
	id := w.dec.begin(msgStatsReply, 0)
	if err := w.fw.send(msgStats, id, nil); err != nil {
		return WorkerStats{}, w.crashError()
	}
	ev, err := w.awaitWithin(context.Background(), statsWait, "stats")
	return WorkerStats{IdleReleases: ev.stats.IdleReleases, SharedTables: ev.stats.SharedTables,
		IdleChecks: ev.stats.IdleChecks, GCPercent: ev.stats.GCPercent}, err
}

// stats is the worker's reply to msgStats.
func (ws *workerSide) stats() []byte {
	// The tables are dropped once the session's interpreter is made: wait
	// for it (a worker with no session yet answers at once).
	ws.session()
	releases, checks := ws.idle.counts()
	return mustJSON(statsMsg{IdleReleases: releases, SharedTables: sharedTables(), IdleChecks: checks,
		GCPercent: ws.gcPacer().percent()})
}
