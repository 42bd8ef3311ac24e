// Package cpupin puts every thread of the host and of its workers on one
// CPU, and gives them back the CPUs they were allowed.
//
// Why: a cell at the prompt is a chain of wake-ups (the SSH reader, the
// host's loop, the worker, the host again, the SSH writer), each handing
// the work to a thread that was asleep, and never two links at once. On
// this VM a wake-up onto an idle vCPU goes through the hypervisor (median
// 25 µs, against 6 µs onto the CPU already running; docs/capacity.md), so
// the chain runs faster on one CPU than spread over two. Work that runs
// in parallel needs every CPU: internal/hostprocs decides when to pin and
// unpins once the pinned CPU is saturated, and a UDF call, whose records
// run in parallel, holds the pin off for its length (Hold).
package cpupin

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Pinner pins the process it runs in and its children (the workers).
type Pinner struct {
	pid     int
	allowed unix.CPUSet // the main thread's set when New ran: what Unpin restores
	cpus    []int       // the CPUs in allowed, ascending
	load    load        // of cpus

	mu     sync.Mutex // guards the fields below, and serialises every change of sets
	pinned int        // the CPU every task is on; -1: none
	holds  int        // calls of Hold not released
}

// ErrOneCPU is New's error when the process may use only one CPU.
var ErrOneCPU = errors.New("cpupin: the process may use only one CPU")

// ErrHeld is Pin's error while a Hold is in force.
var ErrHeld = errors.New("cpupin: held unpinned")

// current is the process's Pinner, for Hold; nil until New.
var current atomic.Pointer[Pinner]

// New returns the process's Pinner, unpinned. It fails when the process
// may use one CPU only or when the kernel does not list a thread's
// children (/proc/<pid>/task/<tid>/children, CONFIG_PROC_CHILDREN), without
// which workers could not be found.
func New() (*Pinner, error) {
	pid := os.Getpid()
	p := &Pinner{pid: pid, pinned: -1}
	if err := unix.SchedGetaffinity(pid, &p.allowed); err != nil {
		return nil, fmt.Errorf("cpupin: %w", err)
	}
	for cpu := range maxCPUs {
		if p.allowed.IsSet(cpu) {
			p.cpus = append(p.cpus, cpu)
		}
	}
	if len(p.cpus) < 2 {
		return nil, ErrOneCPU
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err != nil {
		return nil, fmt.Errorf("cpupin: workers cannot be listed: %w", err)
	}
	p.load = load{cpus: p.cpus, last: make([]cpuTimes, len(p.cpus))}
	current.Store(p)
	return p, nil
}

// maxCPUs is the size of unix.CPUSet in CPUs.
const maxCPUs = len(unix.CPUSet{}) * 64

// CPUs returns the CPUs the process may use, ascending.
func (p *Pinner) CPUs() []int { return p.cpus }

// Pinned returns the CPU the process is pinned to, or -1.
func (p *Pinner) Pinned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pinned
}

// Pin puts every thread of the process and of its children on cpu, one of
// CPUs. Threads and children started later inherit it from the thread
// that starts them. It refuses with ErrHeld while a Hold is in force; on
// any other error it leaves every task on the allowed set.
func (p *Pinner) Pin(cpu int) error {
	if !p.allowed.IsSet(cpu) {
		return fmt.Errorf("cpupin: CPU %d is not one the process may use", cpu)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holds > 0 {
		return ErrHeld
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := setTree(p.pid, &one); err != nil {
		p.pinned = cpu // some tasks may be: unpin them all
		p.unpinLocked()
		return err
	}
	p.pinned = cpu
	return nil
}

// Unpin gives every thread of the process and of its children the set the
// process had when New ran.
func (p *Pinner) Unpin() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unpinLocked()
}

func (p *Pinner) unpinLocked() error {
	if p.pinned < 0 {
		return nil
	}
	err := setTree(p.pid, &p.allowed)
	p.pinned = -1
	return err
}

// Hold unpins the process if it is pinned and keeps Pin from pinning it
// until release is called: for work that runs in parallel (a UDF call),
// which must find every CPU when it starts. It does nothing when the
// process has no Pinner. release may be called more than once.
func Hold() (release func()) {
	p := current.Load()
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	p.holds++
	p.unpinLocked() // a task it could not set keeps the set it had: nothing better to do
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.holds--
			p.mu.Unlock()
		})
	}
}
