package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/replhost/replhost/sandbox"
)

// Session is one user's interpreter, journal and directory.
//
// Lock order: Manager.mu before evalMu before mu. evalMu is held for a whole
// cell (and for a restore); mu only for short reads and writes of the fields
// it guards, never while calling out.
type Session struct {
	id, owner, dir string
	created        time.Time
	ephemeral      bool     // a script's or one-shot eval's: removed when it ends, and by the next host
	env            []string // the code's environment (WithEnv), fixed at Create; in session.json
	m              *Manager
	journal        *Journal
	stdout, stderr switchWriter

	evalMu sync.Mutex // one cell at a time; guards ev
	ev     Evaluator  // nil until loaded
	evKey  uint64     // ev's key in open

	store storeSlot // the session's one artifact store (artifacts.go)

	metaMu       sync.Mutex // serializes writes of session.json and the removal of stale temporary files
	tempsCleaned bool       // guarded by metaMu

	mu           sync.Mutex // guards the fields below
	lastUsed     time.Time
	users        int                           // holds by Create and Acquire: attachments and commands
	running      int                           // cells in Eval (waiting or running)
	detach       func(msg string)              // ends the current interactive attachment
	attachGen    uint64                        // which attachment detach belongs to
	loaded       bool                          // ev != nil, readable without evalMu
	closed       bool                          // killed or evicted: never used again
	cancel       context.CancelFunc            // interrupts the running cell, if any
	open         map[uint64]Evaluator          // evaluators started and not closed (the loaded one, a restore's, a reload's): what a kill ends
	openSeq      uint64                        // the last key given in open or startCancels
	startCancels map[uint64]context.CancelFunc // evaluators being started, by their key to be
	starts       sync.WaitGroup                // evaluators being started: close waits for them (Add under mu, while not closed)
}

// ErrSessionEnded is the error of a cell whose session was killed or
// evicted while it ran; errors.Is(err, ErrNoSuchSession) holds for it.
var ErrSessionEnded error = sessionEnded{}

type sessionEnded struct{}

func (sessionEnded) Error() string        { return "session ended (killed or evicted) while the cell ran" }
func (sessionEnded) Is(target error) bool { return target == ErrNoSuchSession }

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
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
	return Info{ID: s.id, Owner: s.owner, State: s.stateLocked(), Created: s.created, LastUsed: s.lastUsed, Dir: s.dir}
}

// stateLocked is the session's state; called with mu held.
func (s *Session) stateLocked() State {
	switch {
	case s.m.stopping.Load():
		return StateRestorable // what the next host will find
	case s.users > 0:
		return StateLive
	case s.loaded:
		return StateDetached
	}
	return StateRestorable
}

func (s *Session) touch() {
	now := s.m.now()
	s.mu.Lock()
	s.lastUsed = now
	s.mu.Unlock()
}

// Eval runs a cell with the code's output going to stdout and stderr. A cell
// that succeeds is appended to the journal. When the interpreter's process
// died, the user is told, and the session is restored from its journal. A
// session restored from disk is rebuilt first; notices of that go to stderr.
func (s *Session) Eval(ctx context.Context, cell string, show bool, stdout, stderr io.Writer) error {
	if len(cell) > MaxCell {
		return ErrCellTooLarge // one limit for both isolation modes
	}
	s.mu.Lock()
	s.running++ // from now on the session is busy: never evicted
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	defer s.touch()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Checked and set under mu, so that close (and Shutdown) either sees
	// this cell's cancel or this cell sees closed (stopping): a kill never
	// waits for a cell that starts after it.
	s.mu.Lock()
	if s.closed || s.m.stopping.Load() {
		s.mu.Unlock()
		if s.closed {
			return ErrNoSuchSession
		}
		return ErrShuttingDown
	}
	s.cancel = cancel
	s.mu.Unlock()
	if err := s.m.checkFence(s.id); err != nil {
		return err
	}
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	if _, err := s.ensureLoaded(ctx, stderr); err != nil {
		return err
	}
	s.stdout.set(stdout)
	s.stderr.set(stderr)
	start := time.Now()
	s.m.cellBegin()
	err := s.ev.Eval(ctx, cell, show)
	s.m.cellEnd()
	s.m.emit(Event{Kind: EventCell, User: s.owner, Session: s.id, Outcome: CellOutcome(err), Duration: time.Since(start), Code: cell})
	if err != nil && s.isClosed() {
		// Killed or evicted while the cell ran: its evaluator was ended
		// under it, which is no crash to restore from.
		return ErrSessionEnded
	}
	var crash *sandbox.CrashError
	if errors.As(err, &crash) {
		s.m.emit(Event{Kind: EventSessionCrashed, User: s.owner, Session: s.id, Reason: crash.Reason})
		if errors.Is(err, context.Canceled) {
			// Interrupted, but the cell would not stop (a native call):
			// its worker was ended.
			fmt.Fprintln(stderr, "interrupted; the cell did not stop, so its worker was replaced: restoring")
		} else {
			fmt.Fprintf(stderr, "session crashed: %s; restoring\n", crash.Reason)
		}
		s.unloadLocked()
		n, lerr := s.ensureLoaded(context.WithoutCancel(ctx), stderr)
		if lerr != nil {
			return lerr
		}
		announceRestore(stderr, n)
		s.stdout.set(stdout)
		s.stderr.set(stderr)
		return err
	}
	var exit *sandbox.ExitError
	if errors.As(err, &exit) && exit.Process {
		// The worker exited with the code's os.Exit: the next use
		// restores the session in a new one.
		s.unloadLocked()
		return err
	}
	if err == nil {
		if ferr := s.m.checkFence(s.id); ferr != nil {
			return fmt.Errorf("cell ran but was not saved: %w", ferr)
		}
		if jerr := s.journal.Append(cell); jerr != nil {
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

// metaLocked is the session's session.json in state; called with mu held.
func (s *Session) metaLocked(state State) meta {
	return meta{ID: s.id, Owner: s.owner, Created: s.created, LastUsed: s.lastUsed, State: state, Ephemeral: s.ephemeral, Env: s.env}
}

// saveMeta replaces the session's session.json with a later last use or
// state. The file is fsynced, the rename not: a power loss may bring back the
// previous session.json, whole, which only has an older last use (and TTLs
// after a restart count from the host's start anyway).
func (s *Session) saveMeta(md meta) error {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	level := syncNone
	if s.m.sync() {
		level = syncFile
	}
	return writeMeta(s.dir, md, s.m.sealKey, level)
}

// cleanTemps removes, once per host, the temporary files a crash left in
// the session directory (a session.json write that never got to its rename),
// through the directory's os.Root: a planted link is unlinked, never
// followed. The journal's own are removed when it is opened.
func (s *Session) cleanTemps() error {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if s.tempsCleaned {
		return nil
	}
	root, err := os.OpenRoot(s.dir)
	if err == nil {
		err = removeRootTemps(root, ".")
		root.Close()
	}
	if err != nil {
		return fmt.Errorf("clean session directory: %w", err)
	}
	s.tempsCleaned = true
	return nil
}

// unloadLocked closes the evaluator. Called with evalMu held.
func (s *Session) unloadLocked() {
	if s.ev != nil {
		s.closeEvaluator(s.evKey)
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
	if err := s.m.checkFence(s.id); err != nil {
		return err
	}
	if err := s.journal.Clear(); err != nil {
		return err
	}
	_, err := s.ensureLoaded(ctx, notice)
	return err
}

// JournalLen is the number of cells the session has run and kept.
func (s *Session) JournalLen() int { return s.journal.Len() }

// close ends the session's interpreter and any attachment; the Manager
// removes the directory. A running cell (or restore) is interrupted and its
// evaluator ended at once, without waiting for the cell: a looping cell or a
// long restore does not delay a kill. The goroutine that ran it finds the
// session closed.
func (s *Session) close(reason string) {
	s.mu.Lock()
	s.closed = true
	detach, cancel := s.detach, s.cancel
	for _, c := range s.startCancels {
		c() // an interpreter being started: stop waiting for it
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if detach != nil {
		detach(reason)
	}
	s.starts.Wait() // a start that finished meanwhile closed its own
	s.mu.Lock()
	open := make([]uint64, 0, len(s.open))
	for key := range s.open {
		open = append(open, key)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, key := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.closeEvaluator(key)
		}()
	}
	wg.Wait()
	s.journal.Close()
}

// unload ends the interpreter but keeps the session (host shutdown).
func (s *Session) unload() {
	s.evalMu.Lock()
	s.unloadLocked()
	s.evalMu.Unlock()
	s.journal.Release()
}

// TakenOverMessage is what an interactive attachment is told when a newer
// one of the same session takes its place.
const TakenOverMessage = "session attached from another connection; this one is closed"

// attachTerminal makes detach the way to end the session's interactive
// attachment and ends the one before it with TakenOverMessage: two terminals
// on one session, the newer wins. release undoes it, unless a newer
// attachment has taken over meanwhile (its detach must stay).
func (s *Session) attachTerminal(detach func(msg string)) (release func()) {
	s.mu.Lock()
	prev := s.detach
	s.attachGen++
	gen := s.attachGen
	s.detach = detach
	s.mu.Unlock()
	if prev != nil {
		prev(TakenOverMessage)
	}
	return func() {
		s.mu.Lock()
		if s.attachGen == gen {
			s.detach = nil
		}
		s.mu.Unlock()
	}
}

// Load starts the session's interpreter and replays its journal if it has
// none yet (a session restored from disk); notices go to w.
func (s *Session) Load(ctx context.Context, w io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	n, err := s.ensureLoaded(ctx, w)
	announceRestore(w, n)
	return err
}
