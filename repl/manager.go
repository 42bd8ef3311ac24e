package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/modules"
	"github.com/replhost/replhost/sandbox"
)

var (
	// ErrNoSuchSession is the one answer for an unknown, foreign, killed,
	// evicted or malformed uuid, so that nobody learns of other users'
	// sessions.
	ErrNoSuchSession = errors.New("no such session")
	// ErrTooManySessions refuses a session over Config.MaxSessionsPerUser.
	ErrTooManySessions = errors.New("too many sessions")
	// ErrShuttingDown refuses new work once Shutdown has begun.
	ErrShuttingDown = errors.New("host is shutting down; try again when it is back")
)

// Config configures a Manager. The zero value of each field has the meaning
// its comment gives.
type Config struct {
	// Root holds one directory per session; required.
	Root string
	// NewEvaluator starts a session's interpreter; nil: in-process with the
	// default allowlist.
	NewEvaluator NewEvaluator
	// IdleRelease is how long after the host's last cell ended (in any
	// session) it gives its free heap back to the kernel; 0: 2 s, as a
	// worker does (sandbox.IdleReleaser); negative: never.
	IdleRelease time.Duration
	// SessionTTL evicts a session nobody uses this long after its last use
	// (see EvictIdle); zero: 30 minutes.
	SessionTTL time.Duration
	// MaxSessionsPerUser caps a user's sessions; zero: 16.
	MaxSessionsPerUser int
	// NoSync skips the fsyncs of session.json and journal cells: state then
	// survives a killed host (writes stay atomic) but not a power loss. For
	// tests and benchmarks; false: every write is fsynced.
	NoSync bool
	// Now is the clock of last use and eviction; nil: time.Now. Tests move
	// it to evict without sleeping.
	Now func() time.Time
	// Logger receives session events; nil: discarded.
	Logger *slog.Logger
	// Artifacts are the limits of each session's artifact store; zero:
	// artifacts.DefaultLimits.
	Artifacts artifacts.Limits
	// DiskQuota is a user's disk quota per session (uploads past it are
	// refused; the worker's own writes are the sandbox's to stop); nil or
	// <= 0: none.
	DiskQuota func(owner string) int64
	// Modules fetches Go modules for :get; nil: the host fetches none.
	Modules *modules.Fetcher
	// ModuleAllowed says which standard packages fetched modules may
	// import (the sessions' allowlist); nil: all but unsafe.
	ModuleAllowed modules.Checker
	// CheckOwner validates the owner a session.json names, on the session's
	// own disk and so hostile input (e.g. that it is a configured user); a
	// session whose owner fails is skipped at start-up and logged. Nil:
	// users.CheckName (a well-formed name).
	CheckOwner func(name string) error
	// ReplayTimeout bounds each cell a restore replays (then one call per
	// cell); zero: none, and the whole journal is one Replay call.
	ReplayTimeout time.Duration
	// UserMaxSessions overrides MaxSessionsPerUser for the users it names;
	// nil: none.
	UserMaxSessions map[string]int
	// Events receives session events (audit log, metrics); nil: none.
	Events Events
	// Ownership fences sessions when several hosts share Root (cluster.go);
	// nil: this host owns every session under Root.
	Ownership Ownership
}

// Manager owns the sessions of a host: it creates them, finds them for
// their owner (Acquire), kills and evicts them, and keeps them on disk across
// host restarts.
//
// Lock order: Manager.mu before Session.evalMu before Session.mu.
type Manager struct {
	cfg        Config
	started    time.Time
	stopping   atomic.Bool           // Shutdown began: no new sessions, no new interpreters
	sealKey    []byte                // seals session.json (metaseal.go)
	legacyMeta bool                  // the seal key was made at this start: unsealed session.json files are the last release's
	idle       *sandbox.IdleReleaser // the host's free heap back to the kernel once no cell ran a while; nil: never

	fences   fences      // claims held on a cluster (cluster.go); fences.mu is never held with mu
	draining atomic.Bool // Drain began: sessions are handed off when released

	mu       sync.Mutex          // guards sessions and creating
	sessions map[string]*Session // by uuid
	creating map[string]int      // sessions being created, by owner: they count against the cap
}

// NewManager opens the sessions under cfg.Root: every session found on disk
// is restorable, rebuilt from its journal on first use. Start-up reads only
// session.json files, whatever the journals' sizes, and finishes what a crash
// interrupted: half-created and half-removed session directories and
// half-written session.json files are removed.
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
	if cfg.IdleRelease == 0 {
		cfg.IdleRelease = 2 * time.Second
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
	key, fresh, err := loadSealKey(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("session seal key: %w", err)
	}
	m := &Manager{cfg: cfg, started: cfg.Now(), sessions: map[string]*Session{}, creating: map[string]int{},
		sealKey: key, legacyMeta: fresh}
	if cfg.IdleRelease > 0 {
		m.idle = sandbox.NewIdleReleaser(cfg.IdleRelease)
	}
	if err := m.scan(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) diskQuota(owner string) int64 {
	if m.cfg.DiskQuota == nil {
		return 0
	}
	return m.cfg.DiskQuota(owner)
}

func (m *Manager) now() time.Time { return m.cfg.Now() }

func (m *Manager) sync() bool { return !m.cfg.NoSync }

func (m *Manager) newEvaluator(ctx context.Context, spec EvaluatorSpec) (Evaluator, error) {
	return m.cfg.NewEvaluator(ctx, spec)
}

// scan finds the sessions a previous host left on disk, and removes what a
// crash left half done at the top of the root and the ephemeral sessions
// (a script's or one-shot eval's, cut off by a crash). It reads one
// session.json per session and nothing else: what a crash may have left
// inside a session directory is cleaned when the session is first loaded. A
// session.json that is not valid skips that session alone, with a log line.
func (m *Manager) scan() error {
	entries, err := os.ReadDir(m.cfg.Root)
	if err != nil {
		return fmt.Errorf("read root: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		dir := filepath.Join(m.cfg.Root, name)
		switch {
		case m.clustered() && !(e.IsDir() && isSessionID(name)):
			// Another host's creation or removal in progress: its own.
		case strings.HasPrefix(name, newPrefix) || strings.HasPrefix(name, trashPrefix):
			// os.RemoveAll unlinks links, never follows them.
			if err := os.RemoveAll(dir); err != nil {
				m.cfg.Logger.Warn("remove leftover session directory", "dir", dir, "err", err)
			}
		case e.IsDir() && isSessionID(name):
			md, err := readMeta(dir, name, m.cfg.CheckOwner, m.sealKey, m.legacyMeta)
			if err != nil {
				m.cfg.Logger.Warn("skipping session directory", "dir", dir, "err", err)
				continue
			}
			if md.Seal == "" {
				// The last release's: sealed now, on the upgrade's first start.
				if err := writeMeta(dir, md, m.sealKey, syncFile); err != nil {
					m.cfg.Logger.Warn("skipping session directory", "dir", dir, "err", fmt.Errorf("seal session.json: %w", err))
					continue
				}
			}
			if md.Ephemeral && m.clustered() {
				continue // perhaps another host's running script
			}
			if md.Ephemeral {
				if err := removeSessionDir(m.cfg.Root, md.ID, m.sync()); err != nil {
					m.cfg.Logger.Warn("remove ephemeral session", "session", md.ID, "err", err)
				}
				m.cfg.Logger.Info("removed ephemeral session left by a crash", "session", md.ID, "user", md.Owner)
				continue
			}
			m.sessions[md.ID] = m.newSession(md, dir)
		}
	}
	return nil
}

// isSessionID reports whether name is a uuid as this host writes them
// (lower-case, with hyphens).
func isSessionID(name string) bool {
	u, err := uuid.Parse(name)
	return err == nil && u.String() == name
}

func (m *Manager) newSession(md meta, dir string) *Session {
	return &Session{id: md.ID, owner: md.Owner, dir: dir, created: md.Created, lastUsed: md.LastUsed, m: m,
		ephemeral: md.Ephemeral, env: md.Env, journal: OpenJournal(dir, m.sync())}
}

// Create makes a new session for owner, with its directory layout and
// session.json, starts its interpreter, and holds it until Release.
func (m *Manager) Create(ctx context.Context, owner string, opts ...CreateOption) (*Session, error) {
	return m.create(ctx, owner, false, opts)
}

// CreateOption sets up a session at Create.
type CreateOption func(*Session)

// WithEnv gives the session's code the environment env (NAME=VALUE,
// checked by sandbox.CheckEnv: Create fails with sandbox.ErrBadEnv): kept
// for every evaluator of the session, in its session.json too, so that a
// restore after a crash or a host restart sees what the cells saw.
func WithEnv(env []string) CreateOption {
	return func(s *Session) { s.env = slices.Clone(env) }
}

// CreateEphemeral makes a throwaway session for a script or a one-shot
// eval: marked so in its session.json before any code runs, so that a host
// that crashes meanwhile never brings it back (the next host removes it).
// The caller ends it with Kill when done.
func (m *Manager) CreateEphemeral(ctx context.Context, owner string, opts ...CreateOption) (*Session, error) {
	return m.create(ctx, owner, true, opts)
}

func (m *Manager) create(ctx context.Context, owner string, ephemeral bool, opts []CreateOption) (*Session, error) {
	if m.stopping.Load() {
		return nil, ErrShuttingDown
	}
	var set Session // what opts set, for session.json
	for _, o := range opts {
		o(&set)
	}
	if err := sandbox.CheckEnv(set.env); err != nil {
		return nil, err
	}
	m.mu.Lock()
	n := m.creating[owner]
	for _, s := range m.sessions {
		if s.owner == owner && !m.clustered() {
			n++
		}
	}
	if m.clustered() {
		creating := n
		m.mu.Unlock()
		c, err := m.clusterCount(ctx, owner, creating)
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		n = c
	}
	if max := m.maxSessions(owner); n >= max {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d of %d in use; end one with kill UUID", ErrTooManySessions, n, max)
	}
	m.creating[owner]++ // the directory is made outside the lock
	m.mu.Unlock()

	now := m.now()
	md := meta{ID: uuid.NewString(), Owner: owner, Created: now, LastUsed: now, State: StateLive, Ephemeral: ephemeral, Env: set.env}
	dir := filepath.Join(m.cfg.Root, md.ID)
	_, err := m.claim(ctx, md.ID, owner)
	if err == nil {
		err = createSessionDir(m.cfg.Root, md, m.sealKey, m.sync())
		if err != nil {
			m.unclaim(md.ID)
		}
	}
	var s *Session
	m.mu.Lock()
	if m.creating[owner]--; m.creating[owner] == 0 {
		delete(m.creating, owner)
	}
	if err == nil {
		s = m.newSession(md, dir)
		for _, o := range opts {
			o(s)
		}
		s.users = 1 // the creator holds it until Release
		m.sessions[md.ID] = s
	}
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}

	s.evalMu.Lock()
	_, err = s.ensureLoaded(ctx, io.Discard)
	s.evalMu.Unlock()
	if err != nil {
		m.remove(s, "start failed")
		return nil, err
	}
	m.cfg.Logger.Info("session created", "session", md.ID, "user", owner)
	m.emit(Event{Kind: EventSessionCreated, User: owner, Session: md.ID})
	return s, nil
}

// Acquire returns owner's session id and holds it (a held session is never
// evicted) until Release. An unknown, foreign, killed, evicted or malformed
// uuid is ErrNoSuchSession. A session restored from disk is rebuilt on its
// first Eval or Load, not here.
func (m *Manager) Acquire(owner, id string) (*Session, error) {
	if m.clustered() {
		return m.acquireClaimed(owner, id)
	}
	return m.use(owner, id, true)
}

// use finds owner's session id and marks it used now; with hold it also
// holds it. Under both locks, so that an eviction either came first (the
// session is gone) or sees the hold.
func (m *Manager) use(owner, id string, hold bool) (*Session, error) {
	if m.stopping.Load() {
		return nil, ErrShuttingDown
	}
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
	if hold {
		s.users++
	}
	s.lastUsed = m.now()
	return s, nil
}

// Release ends a hold taken by Create or Acquire, and saves the last use.
func (m *Manager) Release(s *Session) {
	s.mu.Lock()
	s.users--
	s.lastUsed = m.now()
	md := s.metaLocked(s.stateLocked())
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	defer m.releasedWhileDraining(s)
	if !m.owned(s.id) {
		return // another host's now: its session.json is not ours to write
	}
	// A kill racing with this write is harmless: the directory is renamed
	// away before it is removed, so the write fails rather than bring it back.
	if err := s.saveMeta(md); err != nil {
		m.cfg.Logger.Warn("save session.json", "session", s.id, "err", err)
	}
}

// List returns owner's sessions, oldest first.
func (m *Manager) List(owner string) []Info {
	m.adoptAll(owner)
	m.mu.Lock()
	var out []Info
	for _, s := range m.sessions {
		if s.owner == owner {
			out = append(out, s.Info())
		}
	}
	m.mu.Unlock()
	sortInfos(out)
	return out
}

// Kill ends owner's session id: a running cell is interrupted, an attached
// terminal told, the interpreter ended and the directory removed. The uuid is
// never found again.
func (m *Manager) Kill(owner, id string) error {
	if m.clustered() {
		s, err := m.acquireClaimed(owner, id)
		if err != nil {
			return err
		}
		m.unhold(s)
	}
	m.mu.Lock()
	s, ok := m.sessions[id]
	if !ok || s.owner != owner {
		m.mu.Unlock()
		return ErrNoSuchSession
	}
	m.dropLocked(s)
	m.mu.Unlock()
	m.finish(s, reasonKilled)
	return nil
}

// dropLocked takes s out of the map and marks it closed, under both locks:
// an Acquire either came before (and holds it) or finds nothing.
func (m *Manager) dropLocked(s *Session) {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if m.sessions[s.id] == s {
		delete(m.sessions, s.id)
	}
}

// remove drops a session from the map and ends it.
func (m *Manager) remove(s *Session, reason string) {
	m.mu.Lock()
	m.dropLocked(s)
	m.mu.Unlock()
	m.finish(s, reason)
}

// finish ends a dropped session and removes its directory.
func (m *Manager) finish(s *Session, reason string) {
	s.close(reason)
	s.closeStore()
	if err := removeSessionDir(m.cfg.Root, s.id, m.sync()); err != nil {
		m.cfg.Logger.Warn("remove session directory", "session", s.id, "err", err)
	}
	m.unclaim(s.id)
	m.cfg.Logger.Info("session ended", "session", s.id, "user", s.owner, "reason", reason)
	m.emitEnd(s, reason)
}

// Shutdown ends every interpreter and keeps every session on disk as
// restorable for the next host: running cells are interrupted (they are not
// in the journal), attached terminals told. From its start, Create and
// Acquire return ErrShuttingDown. It returns when all is saved or ctx ends.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.stopping.Store(true)
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		s.mu.Lock()
		detach, cancel, loaded := s.detach, s.cancel, s.loaded
		s.mu.Unlock()
		if !loaded && cancel == nil && detach == nil {
			continue // on disk as it was found: nothing to save
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if cancel != nil {
				cancel()
			}
			if detach != nil {
				detach("host shutting down; attach again when it is back")
			}
			s.unload()
			s.journal.Sync()
			s.mu.Lock()
			md := s.metaLocked(StateRestorable)
			closed := s.closed
			s.mu.Unlock()
			if !closed && m.owned(s.id) {
				if err := s.saveMeta(md); err != nil {
					m.cfg.Logger.Warn("save session.json", "session", s.id, "err", err)
				}
			}
			m.unclaim(s.id)
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
