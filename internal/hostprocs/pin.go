package hostprocs

import (
	"errors"
	"time"

	"github.com/replhost/replhost/internal/cpupin"
)

// Pinning is what the controller needs of internal/cpupin's Pinner: the
// process and its workers on one CPU while on one P.
type Pinning interface {
	CPUs() []int       // the CPUs the process may use
	Sample() []float64 // each CPU's busy share since the last call; nil: unknown
	Pinned() int       // the CPU pinned to, or -1 (a Hold may unpin at any time)
	Pin(cpu int) error // cpupin.ErrHeld while a Hold is in force
	Unpin() error
}

// pinWindow is how many intervals the pinned CPU's load is averaged over
// before it counts as saturated: a /proc/stat tick is 10 ms, too coarse
// for one 100 ms interval, and a collection or a burst of logins should
// not unpin.
const pinWindow = 10

// Backoff before pinning again after the pinned CPU was saturated: it
// doubles each time the pin lasted less than pinSettled, so that work
// that needs more than one CPU (busy workers, another process on that
// CPU) is not pinned over and over.
const (
	pinBackoffMin = 5 * time.Second
	pinBackoffMax = 5 * time.Minute
	pinSettled    = time.Minute
)

// pinState is the controller's view of pinning.
type pinState struct {
	off       bool        // a pin or unpin failed (not for a Hold): not tried again
	window    [][]float64 // the last samples since the pin (or since unpinned), oldest first
	pinnedAt  time.Time
	backoff   time.Duration
	notBefore time.Time
}

// tickPin takes one interval's CPU loads and pins or unpins. It runs only
// while the controller is on one P; going to every P unpins first
// (unpin).
func (c *Controller) tickPin(p *pinState, now time.Time) {
	if p.off {
		return
	}
	busy := c.Pin.Sample()
	if busy == nil {
		p.window = p.window[:0]
		return
	}
	if len(p.window) == pinWindow {
		p.window = append(p.window[:0], p.window[1:]...)
	}
	p.window = append(p.window, busy)
	cpus := c.Pin.CPUs()
	if cpu := c.Pin.Pinned(); cpu >= 0 {
		i := indexOf(cpus, cpu)
		if len(p.window) == pinWindow && p.mean(i) > c.Saturated {
			c.unpin(p)
			if p.backoff == 0 || now.Sub(p.pinnedAt) >= pinSettled {
				p.backoff = pinBackoffMin
			} else {
				p.backoff = min(2*p.backoff, pinBackoffMax)
			}
			p.notBefore = now.Add(p.backoff)
		}
		return
	}
	if now.Before(p.notBefore) {
		return
	}
	// Not when every CPU is nearly busy: one of them would be too.
	total, quietest := 0.0, 0
	for i := range cpus {
		total += p.mean(i)
		if p.mean(i) < p.mean(quietest) {
			quietest = i
		}
	}
	if total > float64(len(cpus))-0.5 {
		return
	}
	err := c.Pin.Pin(cpus[quietest])
	if errors.Is(err, cpupin.ErrHeld) {
		return
	}
	if err != nil {
		p.off = true
	} else {
		p.pinnedAt = now
		p.window = p.window[:0] // saturation counts from the pin
	}
	if c.PinChanged != nil {
		c.PinChanged(cpus[quietest], err)
	}
}

// unpin unpins, if pinned.
func (c *Controller) unpin(p *pinState) {
	if c.Pin == nil || c.Pin.Pinned() < 0 {
		return
	}
	err := c.Pin.Unpin()
	p.window = p.window[:0]
	if err != nil {
		p.off = true // some task may be left pinned: do not add to it
	}
	if c.PinChanged != nil {
		c.PinChanged(-1, err)
	}
}

// mean is CPU i's mean busy share over the window.
func (p *pinState) mean(i int) float64 {
	if len(p.window) == 0 {
		return 0
	}
	sum := 0.0
	for _, s := range p.window {
		sum += s[i]
	}
	return sum / float64(len(p.window))
}

func indexOf(cpus []int, cpu int) int {
	for i, c := range cpus {
		if c == cpu {
			return i
		}
	}
	return 0
}
