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
			Dir: spec.Dir, Allow: allow, Stdout: spec.Stdout, Stderr: spec.Stderr, Memory: memory, Group: spec.Owner,
		})
	}
}
