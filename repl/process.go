package repl

import (
	"context"

	"github.com/replhost/replhost/sandbox"
)

// InWorkers returns a NewEvaluator whose interpreters each run in their own
// worker process from pool, confined to the session directory (Landlock),
// under a memory cap of memory bytes (0: sandbox.DefaultMemory), sharing
// the CPU equally between users first.
func InWorkers(pool *sandbox.Pool, allow sandbox.Allowlist, memory int64) NewEvaluator {
	return func(ctx context.Context, spec EvaluatorSpec) (Evaluator, error) {
		return pool.Get(ctx, sandbox.WorkerOptions{
			Dir: spec.Dir, Allow: allow, Stdout: spec.Stdout, Stderr: spec.Stderr, Memory: memory, Group: spec.Owner, Env: spec.Env,
		})
	}
}

// InWorkersFor is InWorkers with each session's worker options (limits per
// user) chosen by opts; Dir, Stdout, Stderr and Env are the session's.
func InWorkersFor(pool *sandbox.Pool, opts func(EvaluatorSpec) sandbox.WorkerOptions) NewEvaluator {
	return func(ctx context.Context, spec EvaluatorSpec) (Evaluator, error) {
		o := opts(spec)
		o.Dir, o.Stdout, o.Stderr, o.Env = spec.Dir, spec.Stdout, spec.Stderr, spec.Env
		return pool.Get(ctx, o)
	}
}
