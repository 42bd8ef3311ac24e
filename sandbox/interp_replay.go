package sandbox

import "context"

// Replay runs a session's journal, output discarded, stopping at the first
// cell that fails: its index and error, or len(cells) and nil. In process
// a call per cell costs nothing, so it is a loop (the Worker's sends the
// journal in a few messages).
func (in *Interp) Replay(ctx context.Context, cells []string) (int, error) {
	for i, c := range cells {
		if err := in.Eval(ctx, c, false); err != nil {
			return i, err
		}
	}
	return len(cells), nil
}
