package hostprocs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replhost/replhost/internal/cpupin"
)

// cpus is a machine of two CPUs for the controller: their busy shares
// are set by the test; pins, unpins and P counts go into one log, in
// order.
type cpus struct {
	mu     sync.Mutex
	busy   []float64
	pinned int
	held   bool
	fail   error // Pin's error, when set
	unfail error // Unpin's, when set
	log    []string
}

func newCPUs() *cpus { return &cpus{busy: []float64{0, 0}, pinned: -1} }

func (m *cpus) CPUs() []int { return []int{0, 1} }

func (m *cpus) Sample() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.busy)
}

func (m *cpus) Pinned() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pinned
}

func (m *cpus) Pin(cpu int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.held {
		return cpupin.ErrHeld
	}
	if m.fail != nil {
		return m.fail
	}
	m.pinned = cpu
	m.log = append(m.log, fmt.Sprint("pin ", cpu))
	return nil
}

func (m *cpus) Unpin() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pinned = -1
	m.log = append(m.log, "unpin")
	return m.unfail
}

func (m *cpus) set(busy ...float64) {
	m.mu.Lock()
	m.busy = busy
	m.mu.Unlock()
}

func (m *cpus) procs(n int) {
	m.mu.Lock()
	m.log = append(m.log, fmt.Sprint("procs ", n))
	m.mu.Unlock()
}

// events waits for the bubble to settle and returns the log so far.
func (m *cpus) events() []string {
	synctest.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log)
}

func runPinned(ctx context.Context, l *load, m *cpus, changed func(int, error)) {
	c := &Controller{CPU: l.cpu, Set: m.procs, Pin: m, PinChanged: changed}
	go c.Run(ctx)
}

func TestPinsTheQuietestCPUAndUnpinsWhenItIsSaturated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		l := &load{}
		m := newCPUs()
		m.set(0.4, 0.1)
		runPinned(ctx, l, m, nil)
		time.Sleep(250 * time.Millisecond)
		want := []string{"procs 1", "pin 1"}
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("quiet: %v; want %v", got, want)
		}
		m.set(0.4, 0.9) // busy, not saturated
		time.Sleep(3 * time.Second)
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("busy: %v; want %v", got, want)
		}
		m.set(0.1, 1) // saturated: unpinned within a window (1 s)
		time.Sleep(1100 * time.Millisecond)
		want = append(want, "unpin")
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("saturated: %v; want %v", got, want)
		}
		m.set(0.1, 0.4)
		time.Sleep(4 * time.Second) // within the first backoff (5 s)
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("backing off: %v; want %v", got, want)
		}
		time.Sleep(1100 * time.Millisecond)
		want = append(want, "pin 0") // the quietest now
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("after the backoff: %v; want %v", got, want)
		}
		m.set(1, 0.4) // saturated again within a minute: the backoff doubles
		time.Sleep(1100 * time.Millisecond)
		m.set(0.1, 0.1)
		time.Sleep(9 * time.Second)
		want = append(want, "unpin")
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("second backoff (10 s): %v; want %v", got, want)
		}
		time.Sleep(1100 * time.Millisecond)
		want = append(want, "pin 0")
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("after the second backoff: %v; want %v", got, want)
		}
		cancel()
		want = append(want, "unpin", "procs 0") // unpinned before the default P count
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("stopped: %v; want %v", got, want)
		}
	})
}

func TestNoPinWhileEveryCPUIsBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &load{}
		m := newCPUs()
		m.set(0.8, 0.8)
		runPinned(t.Context(), l, m, nil)
		time.Sleep(10 * time.Second)
		if got := m.events(); !slices.Equal(got, []string{"procs 1"}) {
			t.Fatalf("%v; want [procs 1]", got)
		}
		m.set(0.8, 0.6) // 1.4 cores of 2, over the window (1 s): one CPU has room
		time.Sleep(1100 * time.Millisecond)
		if got := m.events(); !slices.Equal(got, []string{"procs 1", "pin 1"}) {
			t.Fatalf("%v; want [procs 1 pin 1]", got)
		}
	})
}

// The host going to every P unpins first: the runtime's default counts
// the CPUs the process may use.
func TestEveryPUnpinsFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &load{}
		m := newCPUs()
		runPinned(t.Context(), l, m, nil)
		time.Sleep(250 * time.Millisecond)
		l.set(0.8) // the host busy
		time.Sleep(150 * time.Millisecond)
		want := []string{"procs 1", "pin 0", "unpin", "procs 0"}
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("%v; want %v", got, want)
		}
		l.set(0.05) // back to one P after 5 s, and pinned again
		time.Sleep(5500 * time.Millisecond)
		want = append(want, "procs 1", "pin 0")
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("%v; want %v", got, want)
		}
	})
}

// A Hold keeps the pin off while it lasts; a pin that fails otherwise
// is not tried again.
func TestHeldPinWaitsAndFailedPinStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &load{}
		m := newCPUs()
		m.held = true
		var mu sync.Mutex
		var errs []error
		runPinned(t.Context(), l, m, func(cpu int, err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
		time.Sleep(2 * time.Second)
		if got := m.events(); !slices.Equal(got, []string{"procs 1"}) {
			t.Fatalf("held: %v; want [procs 1]", got)
		}
		m.mu.Lock()
		m.held, m.fail = false, errors.New("EPERM")
		m.mu.Unlock()
		time.Sleep(2 * time.Second)
		m.mu.Lock()
		m.fail = nil
		m.mu.Unlock()
		time.Sleep(2 * time.Second)
		if got := m.events(); !slices.Equal(got, []string{"procs 1"}) {
			t.Fatalf("after a failed pin: %v; want [procs 1]", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(errs) != 1 || errs[0] == nil {
			t.Fatalf("PinChanged errors %v; want the one failure", errs)
		}
	})
}

// An unpin that fails (some task may be left pinned) ends pinning too.
func TestFailedUnpinStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &load{}
		m := newCPUs()
		m.unfail = errors.New("EPERM")
		runPinned(t.Context(), l, m, nil)
		time.Sleep(250 * time.Millisecond)
		l.set(0.8) // every P: unpins, and fails
		time.Sleep(150 * time.Millisecond)
		l.set(0.05) // back to one P after 5 s: not pinned again
		time.Sleep(10 * time.Second)
		want := []string{"procs 1", "pin 0", "unpin", "procs 0", "procs 1"}
		if got := m.events(); !slices.Equal(got, want) {
			t.Fatalf("%v; want %v", got, want)
		}
	})
}
