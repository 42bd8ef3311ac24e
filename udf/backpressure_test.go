package udf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

// countingReader counts the records it has handed out.
type countingReader struct {
	gen   *genLines
	lines int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.gen.Read(p)
	c.lines += strings.Count(string(p[:n]), "\n")
	return n, err
}

// stuckWriter takes its first write, then blocks until unblock is closed.
type stuckWriter struct {
	writes  int
	unblock chan struct{}
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		<-w.unblock
		return 0, errors.New("gone")
	}
	return len(p), nil
}

// TestRunBackpressure stalls the output of an endless input: once every
// goroutine of the run is blocked, the input read so far must be bounded by
// the batches in flight, not by the input.
func TestRunBackpressure(t *testing.T) {
	for _, workers := range []int{1, 4} {
		synctest.Test(t, func(t *testing.T) {
			// Lines of 1000 bytes, so that the read buffer holds few of them.
			pad := strings.Repeat("x", 1000-10)
			in := &countingReader{gen: &genLines{n: -1, line: func(dst []byte, i int) []byte {
				return fmt.Appendf(dst, "%09d%s", i, pad)
			}}}
			out := &stuckWriter{unblock: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := Run(ctx, native(t, strings.ToUpper), in, out, out, workers)
				done <- err
			}()
			synctest.Wait()
			// In flight: order's capacity, one batch being filled, one at each
			// worker, one at the writer; plus what the read buffer holds.
			limit := (2*workers+2+workers+2)*batchRecords + readBuffer/1000
			if in.lines > limit {
				t.Errorf("workers %d: read %d records with the output stalled; want at most %d", workers, in.lines, limit)
			}
			cancel()
			close(out.unblock)
			if err := <-done; err == nil {
				t.Errorf("got nil error; want one")
			}
		})
	}
}
