package repl

import (
	"context"
	"fmt"
	"io"
)

// Reload gives the session a fresh interpreter with the journal replayed,
// so re-uploaded packages are picked up, and returns how many cells it
// replayed. It is all or nothing: if a cell fails in the fresh interpreter
// (a re-uploaded package that no longer compiles), the fresh one is
// dropped, the session keeps its interpreter and its whole journal, and the
// user is told which cell failed.
func (s *Session) Reload(ctx context.Context, notice io.Writer) (int, error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	if s.ev == nil {
		return s.ensureLoaded(ctx, notice)
	}
	cells, err := s.journal.Cells()
	if err != nil {
		return 0, err
	}
	fresh, key, err := s.startEvaluator(ctx)
	if err != nil {
		return 0, err
	}
	s.stdout.set(nil)
	s.stderr.set(nil)
	i, err := s.replayCells(ctx, fresh, cells)
	if err != nil {
		s.closeEvaluator(key)
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if i >= 0 && i < len(cells) {
			return 0, fmt.Errorf("reload failed at cell %d of %d (%s): %v; the session keeps its interpreter and journal", i+1, len(cells), cellSummary(cells[i]), err)
		}
		return 0, fmt.Errorf("reload failed: %w; the session keeps its interpreter", err)
	}
	s.closeEvaluator(s.evKey)
	s.ev, s.evKey = fresh, key
	return len(cells), nil
}
