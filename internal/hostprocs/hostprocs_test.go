package hostprocs

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// load is a CPU clock for the controller that runs at rate cores, set by
// the test, in the bubble's time.
type load struct {
	mu   sync.Mutex
	rate float64
	at   time.Time
	used time.Duration
}

func (l *load) cpu() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.at.IsZero() {
		l.used += time.Duration(l.rate * float64(now.Sub(l.at)))
	}
	l.at = now
	return l.used
}

func (l *load) set(rate float64) {
	l.cpu()
	l.mu.Lock()
	l.rate = rate
	l.mu.Unlock()
}

// run starts a controller on l in the bubble and returns the P counts it
// set so far.
func run(t *testing.T, ctx context.Context, l *load) func() []int {
	var mu sync.Mutex
	var sets []int
	c := &Controller{CPU: l.cpu, Set: func(n int) { mu.Lock(); sets = append(sets, n); mu.Unlock() }}
	go c.Run(ctx)
	return func() []int {
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sets)
	}
}

func TestControllerFollowsLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		l := &load{}
		l.set(0.05)
		sets := run(t, ctx, l)
		if got := sets(); !slices.Equal(got, []int{1}) {
			t.Fatalf("at start: sets %v; want [1]", got)
		}
		time.Sleep(2 * time.Second)
		if got := sets(); !slices.Equal(got, []int{1}) {
			t.Fatalf("idle: sets %v; want [1]", got)
		}
		l.set(0.8) // busy: every P within an interval
		time.Sleep(150 * time.Millisecond)
		if got := sets(); !slices.Equal(got, []int{1, 0}) {
			t.Fatalf("busy: sets %v; want [1 0]", got)
		}
		l.set(0.3) // between Down and Up: stays
		time.Sleep(12 * time.Second)
		if got := sets(); !slices.Equal(got, []int{1, 0}) {
			t.Fatalf("moderate: sets %v; want [1 0]", got)
		}
		l.set(0.1) // quiet for DownAfter: back to one P
		time.Sleep(11 * time.Second)
		if got := sets(); !slices.Equal(got, []int{1, 0, 1}) {
			t.Fatalf("quiet: sets %v; want [1 0 1]", got)
		}
		cancel()
		if got := sets(); !slices.Equal(got, []int{1, 0, 1, 0}) {
			t.Fatalf("stopped: sets %v; want [1 0 1 0] (the default restored)", got)
		}
	})
}

// A busy interval inside a quiet stretch restarts the wait for one P.
func TestControllerBurstKeepsAllProcs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &load{}
		l.set(0.9)
		sets := run(t, t.Context(), l)
		time.Sleep(150 * time.Millisecond)
		for range 4 {
			l.set(0.05)
			time.Sleep(4 * time.Second)
			l.set(0.9)
			time.Sleep(150 * time.Millisecond)
		}
		if got := sets(); !slices.Equal(got, []int{1, 0}) {
			t.Fatalf("sets %v; want [1 0]", got)
		}
	})
}

// The real thing: the process's own CPU, the runtime's P count.
func TestRunSetsRuntimeProcs(t *testing.T) {
	if !Enabled() {
		t.Skip("GOMAXPROCS fixed or one CPU")
	}
	def := runtime.GOMAXPROCS(0)
	ctx, cancel := context.WithCancel(t.Context())
	changed := make(chan int, 16)
	c := &Controller{Interval: 10 * time.Millisecond, Up: 0.001,
		Changed: func(n int, _ float64) { changed <- n }}
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	next := func() int { // bounded: a controller that never changes fails, not hangs
		select {
		case n := <-changed:
			return n
		case <-time.After(time.Minute):
			t.Fatal("no change of GOMAXPROCS in a minute")
			return -1
		}
	}
	if n := next(); n != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("first change %d, GOMAXPROCS %d; want 1, 1", n, runtime.GOMAXPROCS(0))
	}
	var stop atomic.Bool
	defer stop.Store(true)
	go func() { // spins: any CPU use above 1 ms a second counts as busy here
		for !stop.Load() {
		}
	}()
	n := next()
	stop.Store(true)
	if n != 0 {
		t.Fatalf("second change %d; want 0 (the default)", n)
	}
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("busy: GOMAXPROCS %d; want %d", got, def)
	}
	cancel()
	<-done
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("after Run: GOMAXPROCS %d; want %d", got, def)
	}
}
