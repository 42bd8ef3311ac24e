package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/replhost/replhost/sandbox"
)

// RestoreError is a restore that did not finish for a reason other than a
// cell's own failure: the journal could not be read, the worker crashed or
// broke the protocol, the restore was interrupted or timed out. The journal
// is kept whole, the session stays restorable (the next use tries again),
// and the user can see and change what will be replayed (:journal, :drop).
type RestoreError struct {
	Cell, Cells int // the cell it stopped at (1-based; 0: before any), of how many
	Err         error
}

func (e *RestoreError) Error() string {
	at := ""
	if e.Cell > 0 {
		at = fmt.Sprintf(" at cell %d of %d", e.Cell, e.Cells)
	}
	what := "restore failed"
	if errors.Is(e.Err, context.Canceled) {
		what = "restore interrupted"
	} else if errors.Is(e.Err, context.DeadlineExceeded) {
		what = "restore timed out"
	}
	return fmt.Sprintf("%s%s: %v; the journal is kept whole and the session restores again on next use (:journal lists its cells, :drop N takes one out)", what, at, e.Err)
}

func (e *RestoreError) Unwrap() error { return e.Err }

// cutsJournal reports whether a replayed cell's error is the cell's own
// failure (it does not compile or run now), the only reason to cut the
// journal at it. A crash or protocol error of the worker (a *CrashError,
// which wraps sandbox.ErrProtocol), an interrupt and a timeout are not.
func cutsJournal(err error) bool {
	var crash *sandbox.CrashError
	if errors.As(err, &crash) || errors.Is(err, sandbox.ErrProtocol) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var evalErr *sandbox.EvalError
	var exit *sandbox.ExitError
	return errors.As(err, &evalErr) || errors.As(err, &exit)
}

// ensureLoaded starts the evaluator and replays the journal if the session
// has none (new, restorable after a host restart, or after a crash), and
// returns how many cells it replayed. A restore that does not finish
// (interrupted, or the journal unreadable) leaves the session unloaded, so
// the next use restores it whole. Called with evalMu held.
func (s *Session) ensureLoaded(ctx context.Context, notice io.Writer) (int, error) {
	if s.ev != nil {
		return 0, nil
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return 0, ErrNoSuchSession
	}
	if s.m.stopping.Load() {
		return 0, ErrShuttingDown
	}
	if err := s.cleanTemps(); err != nil {
		return 0, err
	}
	ev, key, err := s.startEvaluator(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return 0, &RestoreError{Err: ctx.Err()}
		}
		return 0, err
	}
	s.ev, s.evKey = ev, key
	s.mu.Lock()
	s.loaded = true
	s.mu.Unlock()
	n, err := s.replay(ctx, notice)
	if err != nil {
		s.unloadLocked()
		return 0, err
	}
	return n, nil
}

// startEvaluator starts an interpreter for the session and registers it
// under key, so a kill can end it at any time. (Keys, not the evaluators
// themselves: an Evaluator need not be comparable.) A kill meanwhile cancels
// the start and waits for it (close), so no worker outlives the kill.
func (s *Session) startEvaluator(ctx context.Context) (Evaluator, uint64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, 0, ErrNoSuchSession
	}
	s.starts.Add(1)
	defer s.starts.Done()
	s.openSeq++
	key := s.openSeq
	if s.startCancels == nil {
		s.startCancels = map[uint64]context.CancelFunc{}
	}
	s.startCancels[key] = cancel
	s.mu.Unlock()

	ev, err := s.m.newEvaluator(ctx, EvaluatorSpec{ID: s.id, Owner: s.owner, Dir: s.dir, Stdout: &s.stdout, Stderr: &s.stderr, Env: s.env})
	s.mu.Lock()
	delete(s.startCancels, key)
	closed := s.closed
	if err == nil && !closed {
		if s.open == nil {
			s.open = map[uint64]Evaluator{}
		}
		s.open[key] = ev
	}
	s.mu.Unlock()
	switch {
	case err != nil && closed:
		return nil, 0, ErrNoSuchSession
	case err != nil:
		return nil, 0, fmt.Errorf("start interpreter: %w", err)
	case closed:
		ev.Close()
		return nil, 0, ErrNoSuchSession
	}
	return ev, key, nil
}

// closeEvaluator ends the evaluator registered under key (safe twice, and
// beside a cell running in it).
func (s *Session) closeEvaluator(key uint64) {
	s.mu.Lock()
	ev := s.open[key]
	delete(s.open, key)
	s.mu.Unlock()
	if ev != nil {
		ev.Close()
	}
}

// replay runs the journal's cells with their output discarded and returns
// how many ran. A cell that fails now with an evaluation error (say, it
// imports an uploaded package since removed) stops the replay there: the
// user is told which, the cells from it on are cut off the journal (kept
// aside, see cut.go) so that it says what the session has, and the session
// goes on from that state. Any other failure is a *RestoreError.
func (s *Session) replay(ctx context.Context, notice io.Writer) (int, error) {
	cells, err := s.journal.Cells()
	if err != nil {
		return 0, &RestoreError{Err: err}
	}
	if len(cells) == 0 {
		return 0, nil // a new session: nothing to restore, no call to make
	}
	s.stdout.set(nil)
	s.stderr.set(nil)
	start := time.Now()
	i, err := s.replayCells(ctx, s.ev, cells)
	s.m.emit(Event{Kind: EventSessionRestored, User: s.owner, Session: s.id, Cells: max(i, 0), Duration: time.Since(start), Outcome: CellOutcome(err)})
	if err == nil {
		return len(cells), nil
	}
	if !cutsJournal(err) || i < 0 || i >= len(cells) {
		cell := 0
		if i >= 0 && i < len(cells) {
			cell = i + 1
		}
		return 0, &RestoreError{Cell: cell, Cells: len(cells), Err: err}
	}
	cut, cerr := s.journal.CutFrom(i, s.m.now())
	if cerr != nil {
		return 0, &RestoreError{Cell: i + 1, Cells: len(cells), Err: cerr}
	}
	fmt.Fprintf(notice, "restore stopped at cell %d of %d (%s): %v; %s dropped from the session (kept in %s/%s: :journal lists them, :journal restore puts them back)\n",
		i+1, len(cells), cellSummary(cells[i]), err, cellRange(i+1, len(cells)), journalDir, cut)
	return i, nil
}

// replayCells runs cells in ev and returns the index and error of the
// first that fails. With Config.ReplayTimeout, each cell has that long
// (one call per cell); else one Replay call.
func (s *Session) replayCells(ctx context.Context, ev Evaluator, cells []string) (int, error) {
	if timeout := s.m.cfg.ReplayTimeout; timeout > 0 {
		for i, c := range cells {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			err := ev.Eval(cctx, c, false)
			cancel()
			if err != nil {
				return i, err
			}
		}
		return len(cells), nil
	}
	return ev.Replay(ctx, cells)
}

// announceRestore tells the user how many cells a restore replayed.
func announceRestore(w io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(w, "restored %s\n", plural(n, "cell"))
	}
}

// cellSummary is the first line of a cell, short enough for a notice.
func cellSummary(cell string) string {
	line, _, more := strings.Cut(strings.TrimSpace(cell), "\n")
	if r := []rune(line); len(r) > 40 {
		line, more = string(r[:40]), true
	}
	if more {
		line += " ..."
	}
	return line
}

func cellRange(from, to int) string {
	if from == to {
		return fmt.Sprintf("cell %d", from)
	}
	return fmt.Sprintf("cells %d-%d", from, to)
}
