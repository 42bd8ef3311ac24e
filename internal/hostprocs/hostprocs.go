// Package hostprocs runs the host process on one P while it is lightly
// loaded and on the runtime's default (every CPU it may use) while it is
// busy.
//
// Why: with an idle P, every goroutine a hand-off readies wakes a second
// thread to look for work (the runtime's wakep: a futex wake, on a VM an
// inter-processor interrupt), which finds none and sleeps again. A cell
// at the prompt makes several such hand-offs in the host (x/crypto's
// reader to its mux, the mux to the input filter, the filter to the loop,
// the worker's reader to the loop), so a lone session paid ~3 context
// switches per cell more on two Ps than on one (docs/capacity.md). Under
// load every P is busy and the wakeups stop mattering, while one P would
// queue the cells; the host then gets its Ps back within one sampling
// interval. On one P it can also keep itself and its workers on one CPU
// (Controller.Pin, pin.go), for the same reason one level down: a wake-up
// of an idle vCPU costs more than one onto the CPU already running.
package hostprocs

import (
	"context"
	"os"
	"runtime"
	"syscall"
	"time"
)

// Controller decides the host's GOMAXPROCS from its CPU use. The zero
// Controller samples every 100 ms and uses the defaults below.
type Controller struct {
	// Interval is how often CPU use is sampled; zero is 100 ms.
	Interval time.Duration
	// Up is the CPU the process used in one interval, in cores, above
	// which it gets every P; zero is 0.5 (half of the one P it has).
	Up float64
	// Down is the mean CPU use over DownAfter, in cores, below which it
	// goes back to one P; zero is 0.2.
	Down float64
	// DownAfter is how long use stays low before going back to one P;
	// zero is 5 s.
	DownAfter time.Duration
	// CPU is the process's CPU time so far; nil reads getrusage(2).
	CPU func() time.Duration
	// Set applies a P count (0: the runtime's default); nil calls
	// runtime.GOMAXPROCS or runtime.SetDefaultGOMAXPROCS.
	Set func(procs int)
	// Changed, if set, is told each change (for the log).
	Changed func(procs int, cores float64)

	// Pin, if set, keeps the process and its workers on one CPU while
	// the process is on one P (internal/cpupin says why): the quietest
	// CPU, unless every CPU is nearly busy; unpinned before it goes to
	// every P, when ctx ends, and when the pinned CPU's mean busy share
	// over 10 intervals is above Saturated (then not pinned again for a
	// backoff, 5 s doubling to 5 min while pins keep ending so).
	Pin Pinning
	// Saturated is the busy share of the pinned CPU above which it
	// unpins; zero is 0.95.
	Saturated float64
	// PinChanged, if set, is told each pin (the CPU) and unpin (-1), and
	// its error: after one it does not pin again (a Hold is no error).
	PinChanged func(cpu int, err error)
}

// Enabled reports whether the host should adapt its P count: not when
// the operator fixed it with GOMAXPROCS, nor when the runtime gives it
// only one.
func Enabled() bool {
	return os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) > 1
}

// Run starts the process on one P and adapts until ctx ends, then leaves
// the runtime's default in place.
func (c *Controller) Run(ctx context.Context) {
	c.fill()
	tick := time.NewTicker(c.Interval)
	defer tick.Stop()
	defer c.Set(0)
	var s state
	var ps pinState
	defer c.unpin(&ps) // before Set(0): the default counts the CPUs allowed
	last, at := c.CPU(), time.Now()
	c.apply(&s, &ps, s.procs())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			cpu := c.CPU()
			want := s.observe(c, (cpu-last).Seconds()/now.Sub(at).Seconds(), now.Sub(at))
			last, at = cpu, now
			if want != s.procs() {
				c.apply(&s, &ps, want)
			}
			if c.Pin != nil && !s.all {
				c.tickPin(&ps, now)
			}
		}
	}
}

func (c *Controller) apply(s *state, ps *pinState, procs int) {
	s.all = procs == 0
	s.lowFor = 0
	s.lowCPU = 0
	if s.all {
		c.unpin(ps) // first: the default counts the CPUs allowed
	} else if c.Pin != nil {
		c.Pin.Sample() // the loads from here on, not over the time on every P
		ps.window = ps.window[:0]
	}
	c.Set(procs)
	if c.Changed != nil {
		c.Changed(procs, s.lastCores)
	}
}

func (c *Controller) fill() {
	if c.Interval <= 0 {
		c.Interval = 100 * time.Millisecond
	}
	if c.Up <= 0 {
		c.Up = 0.5
	}
	if c.Down <= 0 {
		c.Down = 0.2
	}
	if c.DownAfter <= 0 {
		c.DownAfter = 5 * time.Second
	}
	if c.CPU == nil {
		c.CPU = processCPU
	}
	if c.Set == nil {
		c.Set = setProcs
	}
	if c.Saturated <= 0 {
		c.Saturated = 0.95
	}
}

// state is what the controller has seen: which mode it is in, and while
// in the all-P mode, how long and how much CPU it has used since use was
// last high.
type state struct {
	all       bool          // every P; else one
	lowFor    time.Duration // time since use was last above Up (all mode)
	lowCPU    float64       // core-seconds used in lowFor
	lastCores float64
}

// procs is the P count of the current mode: 1, or 0 for the default.
func (s *state) procs() int {
	if s.all {
		return 0
	}
	return 1
}

// observe takes one interval's use, in cores, and returns the P count
// wanted: every P as soon as one interval is busy, one P once the mean
// over DownAfter of intervals none of which was busy is below Down.
func (s *state) observe(c *Controller, cores float64, d time.Duration) int {
	s.lastCores = cores
	if cores > c.Up {
		s.lowFor, s.lowCPU = 0, 0
		return 0
	}
	if !s.all {
		return 1
	}
	s.lowFor += d
	s.lowCPU += cores * d.Seconds()
	if s.lowFor >= c.DownAfter && s.lowCPU/s.lowFor.Seconds() < c.Down {
		return 1
	}
	if s.lowFor >= c.DownAfter {
		s.lowFor, s.lowCPU = 0, 0 // start a new window
	}
	return 0
}

func setProcs(procs int) {
	if procs == 0 {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(procs)
}

// processCPU is the user and system time of every thread of the process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
