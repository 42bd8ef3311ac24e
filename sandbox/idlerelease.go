package sandbox

import "time"

// IdleReleaser gives this process's free heap back to the kernel once no
// request has run for its delay, when enough would come back: what a
// worker does after its cells (idleRelease), for the host's process.
// Safe for concurrent use.
type IdleReleaser struct{ r idleReleaser }

// NewIdleReleaser returns a releaser that waits delay after the last
// request ended.
func NewIdleReleaser(delay time.Duration) *IdleReleaser {
	return &IdleReleaser{r: idleReleaser{delay: delay, worth: heapSlack}}
}

// Begin marks a request running: no release until it ends.
func (h *IdleReleaser) Begin() { h.r.begin() }

// End marks a request ended; the last one running arms the release.
func (h *IdleReleaser) End() { h.r.end() }

// Counts are the releases done and the idle spells looked at.
func (h *IdleReleaser) Counts() (releases, checks int64) { return h.r.counts() }
