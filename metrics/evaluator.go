package metrics

import (
	"context"
	"io"
	"time"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/udf"
)

// Count wraps a NewEvaluator so that interpreter starts, the wait for
// them, and the calls into them are counted. Cells are counted from the
// session's events (Record), which tell user cells from replays.
func (m *Metrics) Count(next repl.NewEvaluator) repl.NewEvaluator {
	return func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		start := time.Now()
		ev, err := next(ctx, spec)
		m.workerWait.Observe(time.Since(start).Seconds())
		if err != nil {
			m.workerStarts.WithLabelValues("error").Inc()
			return nil, err
		}
		m.workerStarts.WithLabelValues("ok").Inc()
		return &counted{next: ev, m: m}, nil
	}
}

// counted passes every call on to next, counting it. It does not embed
// repl.Evaluator: each method is written out, so that a capability added to
// the interface fails to compile here rather than fall back silently.
type counted struct {
	next repl.Evaluator
	m    *Metrics
}

func (c *counted) Eval(ctx context.Context, cell string, show bool) error {
	c.m.evalCalls.WithLabelValues("eval").Inc()
	return c.next.Eval(ctx, cell, show)
}

func (c *counted) Replay(ctx context.Context, cells []string) (int, error) {
	c.m.evalCalls.WithLabelValues("replay").Inc()
	return c.next.Replay(ctx, cells)
}

func (c *counted) Complete(word string) []string { return c.next.Complete(word) }

func (c *counted) UDFs() ([]udf.Entry, error) { return c.next.UDFs() }

func (c *counted) CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (int, error) {
	c.m.evalCalls.WithLabelValues("udf").Inc()
	return c.next.CallUDF(ctx, name, in, out, errOut)
}

func (c *counted) Close() error { return c.next.Close() }
