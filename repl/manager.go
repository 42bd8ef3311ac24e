package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/replhost/replhost/sandbox"
)

var (
	// ErrNoSuchSession is the one answer for an unknown, foreign, killed or
	// evicted uuid, so that nobody learns of other users' sessions.
	ErrNoSuchSession = errors.New("no such session")
	// ErrTooManySessions refuses a session over --max-sessions-per-user.
	ErrTooManySessions = errors.New("too many sessions")
)

// Config configures a Manager. The zero value of each field has the meaning
// its comment gives.
type Config struct {
	// Root holds one directory per session; required.
	Root string
	// NewEvaluator starts a session's interpreter; nil: in-process with the
	// default allowlist.
	NewEvaluator NewEvaluator
	// SessionTTL evicts a detached session this long after its last use;
	// zero: 30 minutes.
	SessionTTL time.Duration
	// MaxSessionsPerUser caps a user's sessions; zero: 16.
	MaxSessionsPerUser int
	// SyncJournal fsyncs every journal entry (survives power loss, costs a
	// disk flush per cell); false survives a killed host all the same.
	SyncJournal bool
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger receives session events; nil: discarded.
	Logger *slog.Logger
}

// Manager owns the sessions of a host.
type Manager struct {
	cfg     Config
	started time.Time

	mu       sync.Mutex          // guards sessions
	sessions map[string]*Session // by uuid
}

// NewManager opens the sessions under cfg.Root: every session found on disk
// is restorable, rebuilt from its journal on first use (start-up reads only
// session.json files, whatever the journals' sizes).
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Root == "" {
		return nil, errors.New("repl: Config.Root is required")
	}
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 30 * time.Minute
	}
	if cfg.MaxSessionsPerUser == 0 {
		cfg.MaxSessionsPerUser = 16
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.NewEvaluator == nil {
		cfg.NewEvaluator = InProcess(sandbox.NewAllowlist(nil))
	}
	if err := os.MkdirAll(cfg.Root, 0o700); err != nil {
		return nil, fmt.Errorf("create root: %w", err)
	}
	m := &Manager{cfg: cfg, started: cfg.Now(), sessions: map[string]*Session{}}
	if err := m.scan(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) now() time.Time { return m.cfg.Now() }

func (m *Manager) newEvaluator(ctx context.Context, spec EvaluatorSpec) (Evaluator, error) {
	return m.cfg.NewEvaluator(ctx, spec)
}

// scan finds the sessions a previous host left on disk.
func (m *Manager) scan() error {
	entries, err := os.ReadDir(m.cfg.Root)
	if err != nil {
		return fmt.Errorf("read root: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || uuid.Validate(e.Name()) != nil {
			continue
		}
		dir := filepath.Join(m.cfg.Root, e.Name())
		md, err := readMeta(dir)
		if err != nil || md.ID != e.Name() || md.Owner == "" {
			m.cfg.Logger.Warn("skipping session directory", "dir", dir, "err", err)
			continue
		}
		s, err := m.newSession(md, dir)
		if err != nil {
			m.cfg.Logger.Warn("skipping session directory", "dir", dir, "err", err)
			continue
		}
		m.sessions[md.ID] = s
	}
	return nil
}

func (m *Manager) newSession(md meta, dir string) (*Session, error) {
	j, err := OpenJournal(filepath.Join(dir, "classes", "repl"))
	if err != nil {
		return nil, err
	}
	return &Session{id: md.ID, owner: md.Owner, dir: dir, created: md.Created, lastUsed: md.LastUsed, m: m, journal: j}, nil
}

// Create makes a new session for owner, with its directory layout and
// session.json, and starts its interpreter.
func (m *Manager) Create(ctx context.Context, owner string) (*Session, error) {
	m.mu.Lock()
	n := 0
	for _, s := range m.sessions {
		if s.owner == owner {
			n++
		}
	}
	if n >= m.cfg.MaxSessionsPerUser {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d of %d in use; end one with kill UUID", ErrTooManySessions, n, m.cfg.MaxSessionsPerUser)
	}
	id := uuid.NewString()
	dir := filepath.Join(m.cfg.Root, id)
	now := m.now()
	md := meta{ID: id, Owner: owner, Created: now, LastUsed: now, State: StateLive}
	s, err := m.makeDirs(md, dir)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	s.users = 1 // the creator holds it until Release
	m.sessions[id] = s
	m.mu.Unlock()

	s.evalMu.Lock()
	err = s.ensureLoaded(ctx, io.Discard)
	s.evalMu.Unlock()
	if err != nil {
		m.remove(s, "start failed")
		return nil, err
	}
	m.cfg.Logger.Info("session created", "session", id, "user", owner)
	return s, nil
}

func (m *Manager) makeDirs(md meta, dir string) (*Session, error) {
	for _, sub := range []string{"classes/repl", "classes/src", "files", "archives"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("create session directory: %w", err)
		}
	}
	if err := writeMeta(dir, md); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("write session.json: %w", err)
	}
	return m.newSession(md, dir)
}

// Acquire returns owner's session id and holds it (a held session is never
// evicted) until Release. An unknown, foreign, killed or evicted uuid is
// ErrNoSuchSession.
func (m *Manager) Acquire(owner, id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok || s.owner != owner {
		return nil, ErrNoSuchSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrNoSuchSession
	}
	s.users++
	s.lastUsed = m.now()
	return s, nil
}

// Release ends a hold taken by Create or Acquire.
func (m *Manager) Release(s *Session) {
	s.mu.Lock()
	s.users--
	s.lastUsed = m.now()
	md := meta{ID: s.id, Owner: s.owner, Created: s.created, LastUsed: s.lastUsed, State: StateDetached}
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		if err := writeMeta(s.dir, md); err != nil {
			m.cfg.Logger.Warn("save session.json", "session", s.id, "err", err)
		}
	}
}

// List returns owner's sessions, oldest first.
func (m *Manager) List(owner string) []Info {
	m.mu.Lock()
	var out []Info
	for _, s := range m.sessions {
		if s.owner == owner {
			out = append(out, s.Info())
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Kill ends owner's session id and removes its directory.
func (m *Manager) Kill(owner, id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	if !ok || s.owner != owner {
		m.mu.Unlock()
		return ErrNoSuchSession
	}
	delete(m.sessions, id)
	m.mu.Unlock()
	m.finish(s, "session killed")
	return nil
}

// remove drops a session from the map and ends it.
func (m *Manager) remove(s *Session, reason string) {
	m.mu.Lock()
	if m.sessions[s.id] == s {
		delete(m.sessions, s.id)
	}
	m.mu.Unlock()
	m.finish(s, reason)
}

func (m *Manager) finish(s *Session, reason string) {
	s.close(reason)
	if err := os.RemoveAll(s.dir); err != nil {
		m.cfg.Logger.Warn("remove session directory", "session", s.id, "err", err)
	}
	m.cfg.Logger.Info("session ended", "session", s.id, "user", s.owner, "reason", reason)
}

// Shutdown ends every interpreter and keeps every session on disk as
// restorable for the next host.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			detach, cancel := s.detach, s.cancel
			md := meta{ID: s.id, Owner: s.owner, Created: s.created, LastUsed: s.lastUsed, State: StateRestorable}
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
			if detach != nil {
				detach("host shutting down; attach again when it is back")
			}
			s.unload()
			writeMeta(s.dir, md)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
