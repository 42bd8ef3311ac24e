package sandbox

import (
	"testing"
	"time"
)

// A release happens once per idle spell: a second one without a request
// between does nothing, and none runs while a request does.
func TestIdleReleaserOncePerSpell(t *testing.T) {
	r := &idleReleaser{delay: time.Hour} // the timer never fires here: release is called by hand
	r.release()
	if got := r.count(); got != 0 {
		t.Fatalf("releases before any request: %d; want 0", got)
	}
	r.begin()
	r.release()
	if got := r.count(); got != 0 {
		t.Fatalf("releases while a request runs: %d; want 0", got)
	}
	r.end()
	r.release()
	r.release()
	if got := r.count(); got != 1 {
		t.Fatalf("releases after one request: %d; want 1", got)
	}
	r.begin()
	r.end()
	r.release()
	if got := r.count(); got != 2 {
		t.Fatalf("releases after a second request: %d; want 2", got)
	}
	worth := false
	r.worth = func() bool { return worth }
	r.begin()
	r.end()
	r.release()
	if got := r.count(); got != 2 {
		t.Fatalf("releases with too little to give back: %d; want 2", got)
	}
	if _, checks := r.counts(); checks != 3 {
		t.Fatalf("idle spells looked at: %d; want 3 (two releases, one skipped)", checks)
	}
	worth = true
	r.release()
	if got := r.count(); got != 2 {
		t.Fatalf("releases in the same idle spell once worth it: %d; want 2 (once per spell)", got)
	}
}

// A real worker gives its memory back once it has idled after a cell; its
// stats say so.
func TestWorkerReleasesMemoryWhenIdle(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	st, err := w.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.IdleReleases != 0 {
		t.Fatalf("idle releases before any cell: %d; want 0", st.IdleReleases)
	}
	// A cell that leaves 4 MiB of garbage (b's first array).
	const garbage = "b = make([]byte, 4<<20); len(b)"
	mustEval(t, w, "b := make([]byte, 4<<20); "+garbage, true)
	// Wait for the release (idleRelease after the cell), bounded generously
	// for a loaded machine; this is no timing assertion. A collection of
	// the runtime's own that comes after the cell leaves nothing to give
	// back and the spell rightly ends without a release. So a garbage cell
	// is run again after a while.
	deadline := time.Now().Add(time.Minute)
	again := time.Now().Add(10 * time.Second)
	for st.IdleReleases == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if time.Now().After(again) {
			mustEval(t, w, garbage, true)
			again = time.Now().Add(10 * time.Second)
		}
		if st, err = w.Stats(); err != nil {
			t.Fatal(err)
		}
	}
	if st.IdleReleases != 1 {
		t.Fatalf("idle releases after one cell and a wait: %d; want 1", st.IdleReleases)
	}
	mustEval(t, w, "len(b)", true) // the worker goes on
}

// A release needs releaseMin of slack, and firstReleaseMin from a worker
// that never collected (its first collection maps the collector's
// metadata).
func TestSlackWorth(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                        string
		objects, live, free, cycles uint64
		want                        bool
	}{
		{"collected-little-garbage", 3 * mib, 2.5 * mib, 0, 1, false},
		{"collected-garbage", 3 * mib, 2 * mib, 0, 3, true},
		{"collected-free-pages", 2 * mib, 2 * mib, mib, 1, true},
		{"never-collected-small-start", 1.5 * mib, 0, 0, 0, false},
		{"never-collected-big-cell", 5 * mib, 0, 0, 0, true},
		{"live-above-objects", mib, 2 * mib, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slackWorth(tt.objects, tt.live, tt.free, tt.cycles); got != tt.want {
				t.Errorf("slackWorth(%d, %d, %d, %d) = %v; want %v", tt.objects, tt.live, tt.free, tt.cycles, got, tt.want)
			}
		})
	}
}
