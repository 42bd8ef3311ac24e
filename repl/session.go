package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/sandbox"
)

// Session is one user's interpreter, journal and directory.
//
// Lock order: evalMu before mu. evalMu is held for a whole cell (and for a
// restore); mu only for short reads and writes of the fields it guards.
type Session struct {
	id, owner, dir string
	created        time.Time
	m              *Manager
	journal        *Journal
	stdout, stderr switchWriter

	evalMu sync.Mutex // one cell at a time; guards ev
	ev     Evaluator  // nil until loaded

	mu       sync.Mutex // guards the fields below
	lastUsed time.Time
	users    int                // attachments and commands holding the session
	detach   func(msg string)   // ends the current interactive attachment
	loaded   bool               // ev != nil, readable without evalMu
	closed   bool               // killed or evicted: never used again
	cancel   context.CancelFunc // interrupts the running cell, if any
}

// Info describes a session for listings.
type Info struct {
	ID       string
	Owner    string
	State    State
	Created  time.Time
	LastUsed time.Time
	Dir      string
}

// ID is the session's uuid.
func (s *Session) ID() string { return s.id }

// Owner is the user the session belongs to.
func (s *Session) Owner() string { return s.owner }

// Dir is the session directory ROOT/<uuid>.
func (s *Session) Dir() string { return s.dir }

// Info returns the session's current description.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := StateRestorable
	switch {
	case s.users > 0:
		st = StateLive
	case s.loaded:
		st = StateDetached
	}
	return Info{ID: s.id, Owner: s.owner, State: st, Created: s.created, LastUsed: s.lastUsed, Dir: s.dir}
}

func (s *Session) touch() {
	now := s.m.now()
	s.mu.Lock()
	s.lastUsed = now
	s.mu.Unlock()
}

// Eval runs a cell with the code's output going to stdout and stderr. A cell
// that succeeds is appended to the journal. When the interpreter's process
// died, the user is told, and the session is restored from its journal.
func (s *Session) Eval(ctx context.Context, cell string, show bool, stdout, stderr io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	defer s.touch()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	if err := s.ensureLoaded(ctx, stderr); err != nil {
		return err
	}
	s.stdout.set(stdout)
	s.stderr.set(stderr)
	err := s.ev.Eval(ctx, cell, show)
	var crash *sandbox.CrashError
	if errors.As(err, &crash) {
		fmt.Fprintf(stderr, "session crashed: %s; restoring\n", crash.Reason)
		s.unloadLocked()
		if lerr := s.ensureLoaded(context.WithoutCancel(ctx), stderr); lerr != nil {
			return lerr
		}
		s.stdout.set(stdout)
		s.stderr.set(stderr)
		return err
	}
	if err == nil {
		if jerr := s.journal.Append(cell, s.m.cfg.SyncJournal); jerr != nil {
			return fmt.Errorf("cell ran but was not saved: %w", jerr)
		}
	}
	return err
}

// Complete returns completions of word in this session.
func (s *Session) Complete(word string) []string {
	if !s.evalMu.TryLock() {
		return nil // a cell is running: no completion rather than a wait
	}
	defer s.evalMu.Unlock()
	if s.ev == nil {
		return nil
	}
	return s.ev.Complete(word)
}

// ensureLoaded starts the evaluator and replays the journal if the session
// has none (new, restorable after a host restart, or after a crash).
// Called with evalMu held.
func (s *Session) ensureLoaded(ctx context.Context, notice io.Writer) error {
	if s.ev != nil {
		return nil
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrNoSuchSession
	}
	ev, err := s.m.newEvaluator(ctx, EvaluatorSpec{ID: s.id, Dir: s.dir, Stdout: &s.stdout, Stderr: &s.stderr})
	if err != nil {
		return fmt.Errorf("start interpreter: %w", err)
	}
	s.ev = ev
	s.mu.Lock()
	s.loaded = true
	s.mu.Unlock()
	return s.replay(ctx, notice)
}

// replay runs the journal's cells with their output discarded. A cell that
// fails now stops the replay there: the user is told which, and the journal
// is cut there so that it says what the session has.
func (s *Session) replay(ctx context.Context, notice io.Writer) error {
	cells, err := s.journal.Cells()
	if err != nil {
		return err
	}
	s.stdout.set(nil)
	s.stderr.set(nil)
	for i, c := range cells {
		err := s.ev.Eval(ctx, c, false)
		if err == nil {
			continue
		}
		var crash *sandbox.CrashError
		if errors.As(err, &crash) {
			s.unloadLocked()
			// Start again without the cell that crashes the interpreter.
			if terr := s.journal.TruncateFrom(i); terr != nil {
				return terr
			}
			fmt.Fprintf(notice, "restore stopped at cell %d of %d: %v; later cells dropped\n", i+1, len(cells), err)
			return s.ensureLoaded(ctx, notice)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(notice, "restore stopped at cell %d of %d: error: %v; later cells dropped\n", i+1, len(cells), err)
		return s.journal.TruncateFrom(i)
	}
	return nil
}

// unloadLocked closes the evaluator. Called with evalMu held.
func (s *Session) unloadLocked() {
	if s.ev != nil {
		s.ev.Close()
		s.ev = nil
	}
	s.mu.Lock()
	s.loaded = false
	s.mu.Unlock()
}

// Reset gives the session a fresh interpreter and an empty journal; its
// artifacts stay.
func (s *Session) Reset(ctx context.Context, notice io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	s.unloadLocked()
	if err := s.journal.Clear(); err != nil {
		return err
	}
	return s.ensureLoaded(ctx, notice)
}

// Reload gives the session a fresh interpreter and replays the journal, so
// re-uploaded packages are picked up.
func (s *Session) Reload(ctx context.Context, notice io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	s.unloadLocked()
	return s.ensureLoaded(ctx, notice)
}

// JournalLen is the number of cells the session has run and kept.
func (s *Session) JournalLen() int { return s.journal.Len() }

// close ends the session's interpreter and any attachment; the Manager
// removes the directory.
func (s *Session) close(reason string) {
	s.mu.Lock()
	s.closed = true
	detach, cancel := s.detach, s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if detach != nil {
		detach(reason)
	}
	s.evalMu.Lock()
	s.unloadLocked()
	s.evalMu.Unlock()
}

// unload ends the interpreter but keeps the session (host shutdown).
func (s *Session) unload() {
	s.evalMu.Lock()
	s.unloadLocked()
	s.evalMu.Unlock()
}

// Load starts the session's interpreter and replays its journal if it has
// none yet (a session restored from disk); notices go to w.
func (s *Session) Load(ctx context.Context, w io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	return s.ensureLoaded(ctx, w)
}

// ListArtifacts lists the session's uploaded packages, files and archives.
func (s *Session) ListArtifacts() ([]artifacts.Info, error) {
	st, err := artifacts.Open(s.dir, artifacts.Limits{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.List()
}
