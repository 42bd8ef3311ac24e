package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Ownership fences the sessions of a root shared by several hosts (a
// cluster): a host loads, runs and writes a session only while it holds
// the session's claim, so that two hosts never run one session. Nil in
// Config: a single host, which owns every session under its root.
type Ownership interface {
	// Claim takes owner's session id for this host, or fails (with the
	// holder in the error when another live host holds it).
	Claim(ctx context.Context, id, owner string) (Fence, error)
	// CountUser is how many sessions owner has across the cluster.
	CountUser(ctx context.Context, owner string) (int, error)
}

// Fence is a held claim on one session.
type Fence interface {
	// Check fails once the claim may have passed to another host; it is
	// called before each journal write.
	Check() error
	// Release gives the session up; another host may claim it then.
	Release(ctx context.Context) error
}

// ErrNotOwned is a journal write refused because this host no longer
// holds the session's claim.
var ErrNotOwned = errors.New("session moved to another node; attach again")

// claimTimeout bounds one call to the cluster's store; releaseTimeout a
// release (a lost lease releases everything anyway).
const (
	claimTimeout   = 10 * time.Second
	releaseTimeout = 2 * time.Second
)

// fences are the claims this host holds, by session uuid.
type fences struct {
	mu   sync.Mutex // guards held; held across Claim so a session is claimed once
	held map[string]Fence
}

func (m *Manager) clustered() bool { return m.cfg.Ownership != nil }

// claim makes sure this host holds session id (a no-op on a single host);
// fresh is true when it was not held before, and what this host knows of
// the session may be stale.
func (m *Manager) claim(ctx context.Context, id, owner string) (fresh bool, err error) {
	if !m.clustered() {
		return false, nil
	}
	m.fences.mu.Lock()
	defer m.fences.mu.Unlock()
	if f, ok := m.fences.held[id]; ok {
		if f.Check() == nil {
			return false, nil
		}
		delete(m.fences.held, id)
	}
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	f, err := m.cfg.Ownership.Claim(ctx, id, owner)
	if err != nil {
		return false, err
	}
	if m.fences.held == nil {
		m.fences.held = map[string]Fence{}
	}
	m.fences.held[id] = f
	return true, nil
}

// ownedSet is the sessions this host holds; nil on a single host.
func (m *Manager) ownedSet() map[string]bool {
	if !m.clustered() {
		return nil
	}
	m.fences.mu.Lock()
	defer m.fences.mu.Unlock()
	set := make(map[string]bool, len(m.fences.held))
	for id, f := range m.fences.held {
		if f.Check() == nil {
			set[id] = true
		}
	}
	return set
}

// checkFence is the check before a journal write.
func (m *Manager) checkFence(id string) error {
	if !m.clustered() {
		return nil
	}
	m.fences.mu.Lock()
	f, ok := m.fences.held[id]
	m.fences.mu.Unlock()
	if !ok {
		return ErrNotOwned
	}
	if err := f.Check(); err != nil {
		return fmt.Errorf("%w (%v)", ErrNotOwned, err)
	}
	return nil
}

// unclaim releases session id's claim, if held.
func (m *Manager) unclaim(id string) {
	if !m.clustered() {
		return
	}
	m.fences.mu.Lock()
	f, ok := m.fences.held[id]
	delete(m.fences.held, id)
	m.fences.mu.Unlock()
	if ok {
		ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		defer cancel()
		if err := f.Release(ctx); err != nil {
			m.cfg.Logger.Warn("release session claim", "session", id, "err", err)
		}
	}
}

// Owns reports whether this host holds session id's claim (always on a
// single host).
func (m *Manager) Owns(id string) bool { return m.owned(id) }

// owned reports whether this host holds session id (always on a single host).
func (m *Manager) owned(id string) bool {
	return m.checkFence(id) == nil
}

// adopt finds session id of owner on the shared root when another host
// made it after this one started; it is then restorable here.
func (m *Manager) adopt(owner, id string) {
	if !m.clustered() || !isSessionID(id) {
		return
	}
	dir := filepath.Join(m.cfg.Root, id)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	md, err := readMeta(dir, id, m.cfg.CheckOwner, m.sealKey, m.legacyMeta)
	if err != nil || md.Owner != owner || md.Ephemeral {
		return
	}
	m.mu.Lock()
	if _, ok := m.sessions[id]; !ok {
		m.sessions[id] = m.newSession(md, dir)
	}
	m.mu.Unlock()
}

// acquireClaimed is Acquire on a cluster: the session is found on the
// shared root if need be and claimed for this host before it is used.
func (m *Manager) acquireClaimed(owner, id string) (*Session, error) {
	s, err := m.use(owner, id, true)
	if errors.Is(err, ErrNoSuchSession) {
		m.adopt(owner, id)
		s, err = m.use(owner, id, true)
	}
	if err != nil {
		return nil, err
	}
	fresh, err := m.claim(context.Background(), id, owner)
	if err != nil {
		m.drop(s)
		return nil, err
	}
	if fresh {
		s = m.refresh(s)
	}
	return s, nil
}

// refresh replaces s, known from an earlier look at the shared root, by
// the session as its last owner left it on disk, when nothing here uses it.
func (m *Manager) refresh(s *Session) *Session {
	md, err := readMeta(s.dir, s.id, m.cfg.CheckOwner, m.sealKey, m.legacyMeta)
	if err != nil {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.sessions[s.id] != s || s.loaded || s.users != 1 || s.running != 0 || s.detach != nil || s.closed {
		return s
	}
	ns := m.newSession(md, s.dir)
	ns.users = 1
	s.closed = true
	m.sessions[s.id] = ns
	return ns
}

// unhold ends a hold taken only to claim.
func (m *Manager) unhold(s *Session) {
	s.mu.Lock()
	s.users--
	s.mu.Unlock()
}

// adoptAll finds owner's sessions on the shared root (a listing).
func (m *Manager) adoptAll(owner string) {
	if !m.clustered() {
		return
	}
	entries, err := os.ReadDir(m.cfg.Root)
	if err != nil {
		return
	}
	for _, e := range entries {
		m.mu.Lock()
		_, known := m.sessions[e.Name()]
		m.mu.Unlock()
		if !known && e.IsDir() {
			m.adopt(owner, e.Name())
		}
	}
}

// drop ends a hold without touching session.json, and forgets a session
// another host owns, so that its state here never goes stale.
func (m *Manager) drop(s *Session) {
	s.mu.Lock()
	s.users--
	idle := s.users == 0 && s.running == 0 && s.detach == nil && !s.loaded
	s.mu.Unlock()
	if idle {
		m.mu.Lock()
		if m.sessions[s.id] == s {
			delete(m.sessions, s.id)
		}
		m.mu.Unlock()
	}
}

// Disown hands session id off: a running cell is interrupted, an attached
// terminal told msg, the interpreter ended, the journal and session.json
// saved as restorable, and the claim released, so that another host
// restores it on its next use. The directory stays.
func (m *Manager) Disown(id, msg string) {
	m.mu.Lock()
	s, ok := m.sessions[id]
	if ok {
		delete(m.sessions, id)
	}
	m.mu.Unlock()
	if !ok {
		m.unclaim(id)
		return
	}
	s.mu.Lock()
	detach, cancel := s.detach, s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if detach != nil {
		detach(msg)
	}
	s.unload()
	s.journal.Sync()
	s.mu.Lock()
	md := s.metaLocked(StateRestorable)
	closed := s.closed
	s.closed = true // this host's copy is never used again
	s.mu.Unlock()
	if !closed && m.owned(id) {
		if err := s.saveMeta(md); err != nil {
			m.cfg.Logger.Warn("save session.json", "session", id, "err", err)
		}
	}
	m.unclaim(id)
	m.cfg.Logger.Info("session handed off", "session", id, "user", s.owner, "reason", msg)
}

// DisownAll hands every session off (the host lost its cluster lease:
// another host may own them already, so nothing more is written).
func (m *Manager) DisownAll(msg string) {
	m.fences.mu.Lock()
	ids := make([]string, 0, len(m.fences.held))
	for id := range m.fences.held {
		ids = append(ids, id)
	}
	m.fences.mu.Unlock()
	for _, id := range ids {
		m.Disown(id, msg)
	}
}

// Drain marks the host draining: its detached sessions are handed off at
// once, attached ones when they are next released (detached), and it
// returns how many it handed off now.
func (m *Manager) Drain() int {
	m.draining.Store(true)
	m.mu.Lock()
	var idle []string
	for id, s := range m.sessions {
		s.mu.Lock()
		if s.users == 0 && s.running == 0 && s.detach == nil && !s.closed {
			idle = append(idle, id)
		}
		s.mu.Unlock()
	}
	m.mu.Unlock()
	n := 0
	for _, id := range idle {
		if m.owned(id) {
			n++
		}
		m.Disown(id, "node draining")
	}
	return n
}

// Draining reports whether Drain was called.
func (m *Manager) Draining() bool { return m.draining.Load() }

// releasedWhileDraining hands s off once its last hold ends on a draining host.
func (m *Manager) releasedWhileDraining(s *Session) {
	if !m.draining.Load() {
		return
	}
	s.mu.Lock()
	idle := s.users == 0 && s.running == 0 && s.detach == nil && !s.closed
	s.mu.Unlock()
	if idle {
		m.Disown(s.id, "node draining")
	}
}

// clusterCount is owner's session count across the cluster plus the ones
// being created here.
func (m *Manager) clusterCount(ctx context.Context, owner string, creating int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	n, err := m.cfg.Ownership.CountUser(ctx, owner)
	if err != nil {
		return 0, fmt.Errorf("count sessions: %w", err)
	}
	return n + creating, nil
}
