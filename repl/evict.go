package repl

import (
	"context"
	"time"
)

// EvictIdle evicts every session nobody holds whose last use is older than
// the TTL: its interpreter ends, its directory is removed, its uuid is never
// found again. A session restored from disk counts its TTL from the later of
// its last use and this host's start, so a restart gives users time to come
// back. It returns how many sessions it evicted.
func (m *Manager) EvictIdle() int {
	now := m.now()
	var victims []*Session
	m.mu.Lock()
	for id, s := range m.sessions {
		s.mu.Lock()
		last := s.lastUsed
		if last.Before(m.started) {
			last = m.started
		}
		if s.users == 0 && !s.closed && now.Sub(last) >= m.cfg.SessionTTL {
			// Closed under both locks: an Acquire either came first (users > 0)
			// or finds the session gone.
			s.closed = true
			delete(m.sessions, id)
			victims = append(victims, s)
		}
		s.mu.Unlock()
	}
	m.mu.Unlock()
	for _, s := range victims {
		m.finish(s, "evicted after idle TTL")
	}
	return len(victims)
}

// RunEvictor evicts idle sessions every interval until ctx ends; zero
// interval: a tenth of the TTL, at most a minute.
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
