package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
)

// A replay request is the cells of a journal, each length-prefixed:
//
//	count (4 bytes) | count × (length (4 bytes) | cell)
//
// so its size is known from the cells' own (JSON would escape each control
// byte or '<' to six), and chunks are cut on the bytes that go on the wire.

// ErrCellTooLarge is returned by Replay for a cell larger than a frame:
// no worker can run it, whatever it holds. It is not the cell's failure:
// the journal is not to be cut at it (repl.Replayer).
var ErrCellTooLarge = errors.New("sandbox: journal cell too large for the worker protocol")

// maxCell is the largest cell a worker can run: an eval frame's payload
// is a flag byte and the cell.
const maxCell = maxFrame - 1

// replaySize is the encoded size of one cell in a replay request.
func replaySize(cell string) int { return 4 + len(cell) }

func encodeReplay(cells []string) []byte {
	size := 4
	for _, c := range cells {
		size += replaySize(c)
	}
	b := make([]byte, 4, size)
	binary.BigEndian.PutUint32(b, uint32(len(cells)))
	for _, c := range cells {
		b = binary.BigEndian.AppendUint32(b, uint32(len(c)))
		b = append(b, c...)
	}
	return b
}

// decodeReplay is the worker's side of encodeReplay.
func decodeReplay(p []byte) ([]string, error) {
	if len(p) < 4 {
		return nil, errors.New("short request")
	}
	n := binary.BigEndian.Uint32(p)
	p = p[4:]
	if uint64(n)*4 > uint64(len(p)) {
		return nil, fmt.Errorf("%d cells in %d bytes", n, len(p))
	}
	cells := make([]string, 0, n)
	for range n {
		if len(p) < 4 {
			return nil, errors.New("short cell header")
		}
		l := binary.BigEndian.Uint32(p)
		p = p[4:]
		if uint64(l) > uint64(len(p)) {
			return nil, fmt.Errorf("cell of %d bytes in %d", l, len(p))
		}
		cells = append(cells, string(p[:l]))
		p = p[l:]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%d bytes after the cells", len(p))
	}
	return cells, nil
}

// replayChunks splits cells into runs whose request fits in a frame; a
// cell too large for a replay frame of its own is a run of one with
// alone set (it goes as an eval frame, one byte smaller).
func replayChunk(cells []string) (n int, alone bool) {
	size := 4
	for n < len(cells) && size+replaySize(cells[n]) <= maxFrame {
		size += replaySize(cells[n])
		n++
	}
	if n == 0 {
		return 1, true
	}
	return n, false
}

// Replay runs a session's journal in the worker, its output discarded, in
// a few messages rather than one round trip per cell (repl.Replayer). It
// stops at the first cell that fails and returns its index and error, or
// len(cells) and nil. A cell no worker can take returns ErrCellTooLarge at
// its index, before anything of it ran; an interrupt (ctx) stops the
// replay at once, as it stops Eval.
func (w *Worker) Replay(ctx context.Context, cells []string) (int, error) {
	done := 0
	for done < len(cells) {
		if len(cells[done]) > maxCell {
			return done, fmt.Errorf("%w: cell %d is %d bytes, at most %d", ErrCellTooLarge, done+1, len(cells[done]), maxCell)
		}
		n, alone := replayChunk(cells[done:])
		if alone {
			if err := w.Eval(ctx, cells[done], false); err != nil {
				return done, err
			}
			done++
			continue
		}
		ran, err := w.replayRun(ctx, cells[done:done+n])
		done += ran
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func (w *Worker) replayRun(ctx context.Context, cells []string) (int, error) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if err := w.usable(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	ev, canceled, err := w.request(ctx, msgReplay, encodeReplay(cells), msgResult, len(cells))
	if err != nil {
		return 0, err
	}
	res := ev.res
	if res.Kind == resCanceled {
		if canceled {
			return res.Records, ctx.Err()
		}
		return res.Records, context.Canceled
	}
	return res.Records, res.err()
}
