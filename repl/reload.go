package repl

import (
	"context"
	"fmt"
	"io"
)

// Reload gives the session a fresh interpreter with the journal replayed,
// so re-uploaded packages are picked up. It is all or nothing: if a cell
// fails in the fresh interpreter (a re-uploaded package that no longer
// compiles), the fresh one is dropped, the session keeps its interpreter
// and its whole journal, and the user is told which cell failed.
func (s *Session) Reload(ctx context.Context, notice io.Writer) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	if s.ev == nil {
		return s.ensureLoaded(ctx, notice)
	}
	cells, err := s.journal.Cells()
	if err != nil {
		return err
	}
	fresh, err := s.m.newEvaluator(ctx, EvaluatorSpec{ID: s.id, Owner: s.owner, Dir: s.dir, Stdout: &s.stdout, Stderr: &s.stderr})
	if err != nil {
		return fmt.Errorf("start interpreter: %w", err)
	}
	s.stdout.set(nil)
	s.stderr.set(nil)
	i, err := fresh.Replay(ctx, cells)
	if err != nil {
		fresh.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if i >= 0 && i < len(cells) {
			return fmt.Errorf("reload failed at cell %d of %d (%s): %v; the session keeps its interpreter and journal", i+1, len(cells), cellSummary(cells[i]), err)
		}
		return fmt.Errorf("reload failed: %w; the session keeps its interpreter", err)
	}
	s.ev.Close()
	s.ev = fresh
	return nil
}
