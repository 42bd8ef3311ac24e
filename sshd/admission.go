package sshd

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxStartups is OpenSSH's MaxStartups start:rate:full: past Start
// unauthenticated connections a new one is refused with probability Rate
// percent, rising linearly to 100 at Full.
type MaxStartups struct{ Start, Rate, Full int }

// DefaultMaxStartups is OpenSSH's default, 10:30:100.
var DefaultMaxStartups = MaxStartups{10, 30, 100}

// ParseMaxStartups reads "start:rate:full", or a bare "full" (refuse past
// it, no early drop), as sshd_config does.
func ParseMaxStartups(s string) (MaxStartups, error) {
	parts := strings.Split(s, ":")
	n := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return MaxStartups{}, fmt.Errorf("max-startups %q: want start:rate:full or a count", s)
		}
		n[i] = v
	}
	var m MaxStartups
	switch len(n) {
	case 1:
		m = MaxStartups{n[0], 100, n[0]}
	case 3:
		m = MaxStartups{n[0], n[1], n[2]}
	default:
		return MaxStartups{}, fmt.Errorf("max-startups %q: want start:rate:full or a count", s)
	}
	if m.Start == 0 || m.Full < m.Start || m.Rate > 100 {
		return MaxStartups{}, fmt.Errorf("max-startups %q: want 0 < start <= full and rate <= 100", s)
	}
	return m, nil
}

func (m MaxStartups) String() string { return fmt.Sprintf("%d:%d:%d", m.Start, m.Rate, m.Full) }

// Penalties are OpenSSH's PerSourcePenalties: time a source address earns
// for a connection that failed to authenticate (AuthFail), left without
// trying (NoAuth), or stalled past the login grace time (Grace). Once a
// source has accrued Min it is refused until its penalty runs out; no
// penalty runs longer than Max. A zero duration earns nothing.
type Penalties struct {
	AuthFail, NoAuth, Grace time.Duration
	Min, Max                time.Duration
	// Exempt sources are never penalised (PerSourcePenaltyExemptList).
	Exempt []netip.Prefix
}

// DefaultPenalties are OpenSSH 9.8's defaults.
var DefaultPenalties = Penalties{AuthFail: 5 * time.Second, NoAuth: time.Second, Grace: 10 * time.Second, Min: 15 * time.Second, Max: 10 * time.Minute}

// maxPenalised bounds the sources remembered; past it new ones go
// unpenalised (OpenSSH's overflow=permissive), so a spoofed flood cannot
// grow the table.
const maxPenalised = 65536

// admission decides which connections may start their handshake.
type admission struct {
	mu        sync.Mutex // guards everything below
	startups  MaxStartups
	perSource int // <= 0: no per-source cap
	pen       Penalties
	total     int                       // connections in their handshake
	bySource  map[netip.Addr]int        // of total, per source address
	penalty   map[netip.Addr]*penaltyOf // sources that earned time
	now       func() time.Time
	roll      func() int // uniform in [0,100)
}

type penaltyOf struct {
	accrued time.Duration
	until   time.Time
	active  bool
}

func newAdmission(m MaxStartups, perSource int, pen Penalties) *admission {
	return &admission{
		startups: m, perSource: perSource, pen: pen,
		bySource: map[netip.Addr]int{}, penalty: map[netip.Addr]*penaltyOf{},
		now: time.Now, roll: func() int { return rand.IntN(100) },
	}
}

// reconfigure takes new limits; connections already admitted stay.
func (a *admission) reconfigure(m MaxStartups, perSource int, pen Penalties) {
	a.mu.Lock()
	a.startups, a.perSource, a.pen = m, perSource, pen
	a.mu.Unlock()
}

func (a *admission) penalties() Penalties {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pen
}

// admit takes a handshake slot for addr, or says why not.
func (a *admission) admit(addr netip.Addr) (ok bool, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if p := a.penalty[addr]; p != nil {
		if now.After(p.until) {
			delete(a.penalty, addr)
		} else if p.active {
			return false, fmt.Sprintf("penalty: source refused for %s more", p.until.Sub(now).Round(time.Second))
		}
	}
	if a.perSource > 0 && a.bySource[addr] >= a.perSource {
		return false, fmt.Sprintf("per-source-max-startups: %d unauthenticated connections from this source", a.perSource)
	}
	m := a.startups
	if a.total >= m.Full {
		return false, fmt.Sprintf("max-startups: %d unauthenticated connections", a.total)
	}
	if a.total >= m.Start {
		p := m.Rate
		if m.Full > m.Start {
			p += (100 - m.Rate) * (a.total - m.Start) / (m.Full - m.Start)
		}
		if a.roll() < p {
			return false, fmt.Sprintf("max-startups: random early drop at %d unauthenticated connections", a.total)
		}
	}
	a.total++
	a.bySource[addr]++
	return true, ""
}

// leave gives back addr's slot: the connection authenticated or ended.
func (a *admission) leave(addr netip.Addr) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total--
	if a.bySource[addr]--; a.bySource[addr] <= 0 {
		delete(a.bySource, addr)
	}
}

// penalise adds d to addr's penalty.
func (a *admission) penalise(addr netip.Addr, d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d <= 0 {
		return
	}
	for _, p := range a.pen.Exempt {
		if p.Contains(addr) {
			return
		}
	}
	now := a.now()
	p := a.penalty[addr]
	if p != nil && now.After(p.until) {
		p = nil
	}
	if p == nil {
		if len(a.penalty) >= maxPenalised {
			a.sweep(now)
			if len(a.penalty) >= maxPenalised {
				return
			}
		}
		p = &penaltyOf{}
		a.penalty[addr] = p
	}
	p.accrued = min(p.accrued+d, max(a.pen.Max, d))
	p.until = now.Add(p.accrued)
	if p.accrued >= a.pen.Min {
		p.active = true
	}
}

// sweep forgets penalties that have run out.
func (a *admission) sweep(now time.Time) {
	for addr, p := range a.penalty {
		if now.After(p.until) {
			delete(a.penalty, addr)
		}
	}
}

// refusalLog lets through a few refusal lines per second: a flood of
// refused connections must not become a flood of log lines.
type refusalLog struct {
	mu         sync.Mutex
	second     time.Time
	n          int
	suppressed int
}

const refusalLinesPerSecond = 10

// allow reports whether to log now, and how many lines were held back
// before this one.
func (r *refusalLog) allow(now time.Time) (bool, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sec := now.Truncate(time.Second); !sec.Equal(r.second) {
		r.second, r.n = sec, 0
	}
	if r.n >= refusalLinesPerSecond {
		r.suppressed++
		return false, 0
	}
	r.n++
	s := r.suppressed
	r.suppressed = 0
	return true, s
}

// Set parses s (flag.Value).
func (m *MaxStartups) Set(s string) error {
	v, err := ParseMaxStartups(s)
	if err == nil {
		*m = v
	}
	return err
}

// PerSourceLimit is a PerSourceMaxStartups value as a flag: a count, or
// "none" (no cap). Its zero value means Config's default.
type PerSourceLimit int

func (p *PerSourceLimit) Set(s string) error {
	if s == "none" {
		*p = -1
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("per-source-max-startups %q: want a count or none", s)
	}
	*p = PerSourceLimit(n)
	return nil
}

func (p PerSourceLimit) String() string {
	switch {
	case p < 0:
		return "none"
	case p == 0:
		return strconv.Itoa(defaultPerSource)
	}
	return strconv.Itoa(int(p))
}
