package repl

import (
	"context"
	"io"

	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/udf"
)

// Evaluator runs the cells of one session. sandbox.Interp (in-process) and
// sandbox.Worker (a worker process) satisfy it.
type Evaluator interface {
	// Eval runs one cell; with show, the values of expression statements are
	// written to the evaluator's stdout. It returns *sandbox.EvalError,
	// *sandbox.ExitError, ctx.Err() when interrupted, *sandbox.CrashError
	// when the interpreter's process died, or nil.
	Eval(ctx context.Context, cell string, show bool) error
	// Complete returns the completions of the identifier or pkg.Member word.
	Complete(word string) []string
	// Replay runs a session's journal: cells in order, their output
	// discarded, stopping at the first that fails. It returns that cell's
	// index and error, or len(cells) and nil. A worker runs it in one round
	// trip, not one per cell: a wrapper must pass it on, not loop over Eval.
	Replay(ctx context.Context, cells []string) (int, error)
	// UDFs lists the UDFs the session's code registered.
	UDFs() ([]udf.Entry, error)
	// CallUDF streams in, one record per line, through UDF name; results go
	// to out in input order, one error line per failed record to errOut.
	CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (failed int, err error)
	// Close ends the evaluator; safe to call twice.
	Close() error
}

// EvaluatorSpec is what a new evaluator is made for: the session directory
// and where the code's output goes.
type EvaluatorSpec struct {
	ID             string
	Owner          string // the session's user: per-user limits, workers share the CPU per user
	Dir            string
	Stdout, Stderr io.Writer
	// Env is the environment the session's code sees (sandbox.CheckEnv):
	// what its SSH client sent, as OpenSSH gives it to a login's process.
	Env []string
}

// NewEvaluator starts an evaluator for a session.
type NewEvaluator func(ctx context.Context, spec EvaluatorSpec) (Evaluator, error)

// InProcess returns a NewEvaluator of in-process interpreters with the given
// allowlist: symbol, package and file-name isolation only, for trusted use.
func InProcess(allow sandbox.Allowlist) NewEvaluator {
	return func(_ context.Context, spec EvaluatorSpec) (Evaluator, error) {
		return sandbox.NewInterp(sandbox.Options{Dir: spec.Dir, Allow: allow, Stdout: spec.Stdout, Stderr: spec.Stderr, Env: spec.Env})
	}
}
