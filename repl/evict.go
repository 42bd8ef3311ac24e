package repl

import (
	"context"
	"time"
)

// EvictIdle evicts every idle session whose last use is Config.SessionTTL or
// more ago: its interpreter (worker) ends, its directory is removed, and its
// uuid is never found again (Acquire and Kill answer ErrNoSuchSession). It
// returns how many sessions it evicted.
//
// A session in use is never evicted: one held by Create or Acquire (an
// attached terminal, a running command), one with a cell in Eval, one with a
// terminal attached. A session is checked and closed under the Manager's
// lock and its own, the locks Acquire takes, so an Acquire at the TTL
// boundary either comes first (the session is held, and stays whole) or
// finds no session; never one half removed.
//
// A session restored from disk counts its TTL from the later of its last use
// and this host's start (the Manager's creation): a host that was down longer
// than the TTL does not evict everything at once, users get a full TTL to
// come back after a restart.
func (m *Manager) EvictIdle() int {
	if m.stopping.Load() {
		return 0 // sessions stay on disk for the next host
	}
	now := m.now()
	var victims []*Session
	owned := m.ownedSet()
	m.mu.Lock()
	for _, s := range m.sessions {
		if owned != nil && !owned[s.id] {
			continue // another host's to evict (cluster.go)
		}
		s.mu.Lock()
		last := s.lastUsed
		if last.Before(m.started) {
			last = m.started
		}
		idle := s.users == 0 && s.running == 0 && s.detach == nil && !s.closed
		if idle && now.Sub(last) >= m.cfg.SessionTTL {
			s.closed = true // in the same critical section as the check
			victims = append(victims, s)
		}
		s.mu.Unlock()
	}
	for _, s := range victims {
		delete(m.sessions, s.id)
	}
	m.mu.Unlock()
	for _, s := range victims {
		m.finish(s, reasonEvicted)
	}
	return len(victims)
}

// RunEvictor evicts idle sessions every interval until ctx ends; zero
// interval: a tenth of the TTL, between a second and a minute.
func (m *Manager) RunEvictor(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = min(m.cfg.SessionTTL/10, time.Minute)
		interval = max(interval, time.Second)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.EvictIdle()
		}
	}
}
