package metrics

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/udf"
)

// Count wraps a NewEvaluator so that every cell is counted by outcome.
func (m *Metrics) Count(next repl.NewEvaluator) repl.NewEvaluator {
	return func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		ev, err := next(ctx, spec)
		if err != nil {
			return nil, err
		}
		return &counted{Evaluator: ev, m: m}, nil
	}
}

// counted is an evaluator whose cells are counted; it keeps the UDFs of
// the evaluator it wraps.
type counted struct {
	repl.Evaluator
	m *Metrics
}

func (c *counted) Eval(ctx context.Context, cell string, show bool) error {
	start := time.Now()
	err := c.Evaluator.Eval(ctx, cell, show)
	c.m.Observe(Outcome(err), time.Since(start))
	return err
}

// Outcome names the result of a cell for the metrics.
func Outcome(err error) string {
	var exit *sandbox.ExitError
	var crash *sandbox.CrashError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &crash):
		return "crashed"
	case errors.As(err, &exit):
		return "exit"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return "error"
}

var errNoUDFs = errors.New("udf: this session's interpreter holds no UDFs")

func (c *counted) UDFs() ([]udf.Entry, error) {
	if h, ok := c.Evaluator.(repl.UDFHost); ok {
		return h.UDFs()
	}
	return nil, errNoUDFs
}

func (c *counted) CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (int, error) {
	if h, ok := c.Evaluator.(repl.UDFHost); ok {
		return h.CallUDF(ctx, name, in, out, errOut)
	}
	return 0, errNoUDFs
}
