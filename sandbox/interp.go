package sandbox

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/replhost/replhost/udf"
	"github.com/traefik/yaegi/interp"
)

// Options configure the interpreter of one session. The zero value is an
// interpreter with the default allowlist, no GOPATH and output discarded.
type Options struct {
	// Dir is the session directory: Dir/classes is the GOPATH, so an uploaded
	// package Dir/classes/src/P is importable as "P". Empty: no uploads.
	Dir string
	// Allow is the package allowlist; the zero value is the default one.
	Allow Allowlist
	// Stdout and Stderr receive the code's output and the values shown;
	// nil discards.
	Stdout, Stderr io.Writer
	// Use are extra symbol tables offered to the code (the udf package).
	Use []interp.Exports
	// StopWait is how long an interrupted cell is awaited before it is left
	// running (blocked in a native call; see Stuck); zero: DefaultStopWait.
	StopWait time.Duration
	// NoLowering sends cells to yaegi as typed, without the Go 1.26 front
	// end (for comparison runs).
	NoLowering bool
	// Env is the environment the code sees (os.Getenv), NAME=VALUE
	// entries checked by CheckEnv, beside HOME (the session's files/). It is
	// the interpreter's own: the host's process environment is not touched.
	Env []string
	// WorkDir says the process already runs in the session's files/ (a
	// worker); empty: relative file names are resolved against Dir/files by
	// the os functions offered to the code, as in-process sessions share the
	// host's working directory.
	WorkDir string
}

func init() {
	// Read in interp.New; without it the code's os.Stdout and os.Stderr
	// are the host process's own fd 1 and 2.
	yaegix.SetSpecialStdio()
}

// Interp is a yaegi interpreter for one session, in this process. It is safe
// for concurrent use; cells run one at a time.
type Interp struct {
	mu       sync.Mutex // serializes cells and guards the fields below
	yi       *interp.Interpreter
	exports  interp.Exports
	allow    Allowlist
	stdout   io.Writer
	stderr   *panicFilter
	names    *nameIndex
	closed   bool
	ctl      *yaegix.Control // stops a running cell
	exec     *yaegix.Exec    // runs compiled code without copying the global frame
	release  *yaegix.Release // lets a run cell's tree go
	stopWait time.Duration   // how long a stopped cell is awaited
	stuck    atomic.Bool     // an interrupted cell runs on in a native call
	jobs     chan func()     // to the runner goroutine (onRunner); nil: none

	reg      *udf.Registry  // the session's UDFs, when this interpreter holds them
	lower    *lower.Session // the typed front end; nil: cells go to yaegi as typed
	generics bool           // the session declared generics: every cell is lowered
	methods  bool           // the session may have types with methods (methodhint.go)

	genericsDone bool // yaegi's generic sources are compiled (genericsrc.go)
}

// tupleExports lets an expression statement hand all its results to the host:
// Go passes a multi-valued call straight into a variadic parameter. Stringer
// lets a shown value of an interpreted type keep its String method (see
// showMethods): yaegi wraps it in fmt's own _Stringer.
var tupleExports = interp.Exports{
	"replhost.internal/rh/rh": {
		"Tuple":    reflect.ValueOf(func(v ...any) []any { return v }),
		"Stringer": reflect.ValueOf((*fmt.Stringer)(nil)),
	},
}

const tuplePrefix = "__rh.Tuple(\n"

// DefaultStopWait is how long an interrupted cell's goroutine is awaited
// by default; an interpreted loop sees the stop within microseconds.
const DefaultStopWait = 2 * time.Second

// NewInterp returns a fresh interpreter for a session.
func NewInterp(opts Options) (*Interp, error) {
	if err := CheckEnv(opts.Env); err != nil {
		return nil, err
	}
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	filter := &panicFilter{w: stderr}
	goPath := ""
	if opts.Dir != "" {
		goPath = filepath.Join(opts.Dir, "classes")
	}
	yi := interp.New(interp.Options{
		GoPath: goPath,
		Stdin:  strings.NewReader(""),
		Stdout: stdout,
		Stderr: filter,
		Args:   []string{"replhost"},
		Env:    interpEnv(opts.Env, filepath.Join(opts.Dir, "files")),
	})
	exports := withFlagSet(opts.Allow.Exports(), filter)
	if opts.Dir != "" && opts.WorkDir == "" {
		exports = withWorkDir(exports, filepath.Join(opts.Dir, "files"))
	}
	// Shared, not copied: the tables of packages yaegi only reads stay the
	// process's (stdtables.go); no generic sources yet (ensureGenerics).
	if err := yaegix.UseShared(yi, append([]interp.Exports{exports, lowerSymbols(opts.Allow), lower.Runtime, tupleExports}, opts.Use...)...); err != nil {
		return nil, fmt.Errorf("load symbols: %w", err)
	}
	if _, err := yi.Eval(`import __rh "replhost.internal/rh"`); err != nil {
		return nil, fmt.Errorf("load result helper: %w", err)
	}
	ctl, err := yaegix.NewControl(yi)
	if err != nil {
		return nil, err
	}
	exec, err := yaegix.NewExec(yi)
	if err != nil {
		return nil, err
	}
	release, err := yaegix.NewRelease(yi)
	if err != nil {
		return nil, err
	}
	exports = ownTables(yi, exports)
	in := &Interp{yi: yi, exports: exports, allow: opts.Allow, stdout: stdout, stderr: filter, names: newNameIndex(),
		ctl: ctl, exec: exec, release: release, stopWait: opts.StopWait}
	if in.stopWait <= 0 {
		in.stopWait = DefaultStopWait
	}
	in.names.clause = in.packageClause
	if err := in.ensureUDF(opts, filter); err != nil {
		return nil, fmt.Errorf("load udf: %w", err)
	}
	if !opts.NoLowering {
		classes := ""
		if opts.Dir != "" {
			classes = filepath.Join(opts.Dir, "classes")
		}
		in.lower = lower.NewSession(lower.Options{Classes: classes, KeepUnsafe: in.allow.Allowed("unsafe")})
	}
	return in, nil
}

// adoptDir gives an interpreter made without a session directory (by a
// pool's idle worker, which runs in the session's files/: Options.WorkDir)
// its session's: uploads under dir/classes, HOME dir/files, the
// environment env (see Options.Env). Only before its first cell.
func (in *Interp) adoptDir(dir string, env []string) error {
	classes := filepath.Join(dir, "classes")
	if err := yaegix.SetDir(in.yi, classes, filepath.Join(dir, "files")); err != nil {
		return err
	}
	if err := yaegix.SetEnv(in.yi, env); err != nil {
		return err
	}
	if in.lower != nil {
		in.lower = lower.NewSession(lower.Options{Classes: classes, KeepUnsafe: in.allow.Allowed("unsafe")})
	}
	return nil
}

// Eval runs one cell: imports, declarations and statements in any order.
// With show, the value of each expression statement is written to Stdout.
// It returns an *EvalError, an *ExitError, ctx.Err() when interrupted, or nil.
func (in *Interp) Eval(ctx context.Context, cell string, show bool) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return ErrClosed
	}
	return in.eval(ctx, cell, show)
}

// eval is Eval with in.mu held.
func (in *Interp) eval(ctx context.Context, cell string, show bool) error {
	defer in.forgetASTs()
	units, err := splitCell(in.yi, cell)
	if err != nil {
		return err
	}
	var plan *lower.Plan
	cellUnits, ran := units, false
	defer func() { in.forgetTrees(cell, cellUnits, plan != nil || !ran) }()
	if err := checkSyntax(in.yi, units); err != nil {
		return err
	}
	if err := in.checkImports(units); err != nil {
		return err
	}
	commit := !declaresNothing(units)
	plan, back, err := in.lowerCell(cell)
	if err != nil {
		return in.runBefore(ctx, cell, units, show, err) // see lowering.go
	}
	src := cell
	if plan != nil {
		src, units = plan.Src, planUnits(in.yi, plan)
		if err := checkSyntax(in.yi, units); err != nil {
			return &EvalError{Msg: "internal: the Go front end produced code that does not parse: " + err.Error()}
		}
		if err := in.checkUnsafeLeft(cellUnits, units); err != nil {
			return err
		}
	} else if err := in.checkUnsafeLeft(units, units); err != nil {
		return err
	}
	src, units = in.dropReimports(src, units)
	if err := in.ensureGenerics(src, units); err != nil {
		return err
	}
	in.noteMethods(units)
	groups := groupUnits(src, units)
	ran = true
	if src == cell && in.mergeable(groups, show) {
		ran, err := in.evalMerged(ctx, groups)
		if err != nil {
			return err
		}
		if ran {
			if commit {
				in.committed(cell)
			}
			return nil
		}
	}
	for i, g := range groups {
		if err := in.evalUnit(ctx, g, show, i == len(groups)-1); err != nil {
			return back(err)
		}
		in.names.learn(g)
	}
	if commit {
		in.committed(cell)
	}
	return nil
}

// evalUnit runs one unit. An expression is first run wrapped so that all its
// results come back; if that does not compile (a call with no result), it is
// run as it is. Compile errors have no effects, so nothing runs twice.
// Only the cell's last unit shows a nil that is all it has (a mid-cell
// os.Remove or json.Unmarshal prints no <nil>).
//
// yaegi compiles the unit's own parse (u.node), the wrappers built around
// its expression; without one, it gets the same code as text, laid out so
// that its positions are the same: yaegi puts "package main; func main()
// {" before a statement on its first line, so the user's code starts one
// line down, at its column (the final newline keeps yaegi's closing brace
// out of a trailing line comment). Either way positions are the user's,
// one line down.
func (in *Interp) evalUnit(ctx context.Context, u unit, show, last bool) error {
	if u.isExpr && show {
		if v, ran, err := in.runShown(ctx, u); ran {
			if err == nil {
				in.show(v, last, outputCall(u))
			}
			return err
		}
	}
	pad := "\n" + strings.Repeat("\n", u.line-1) + strings.Repeat(" ", u.col-1)
	if u.isExpr {
		code := source{text: tuplePrefix + pad[1:] + u.text + ")\n"}
		if x := u.expr(); x != nil {
			code = source{node: tupleBlock(u.node.(*ast.BlockStmt), x)}
		}
		v, err := in.run(ctx, code)
		if err == nil {
			if show {
				in.show(v, last, outputCall(u))
			}
			return nil
		}
		var ev *EvalError
		if !errors.As(err, &ev) || !ev.compile {
			return shiftError(err, 1)
		}
	}
	code := source{text: pad + u.text + "\n"}
	switch {
	case u.node != nil:
		code = source{node: u.node}
	case u.kind == unitStmt:
		code.text = yaegix.StmtText(code.text)
	}
	_, err := in.run(ctx, code)
	return shiftError(err, 1)
}

func (in *Interp) show(v reflect.Value, last, output bool) {
	vals, ok := v.Interface().([]any)
	if !ok {
		return
	}
	if !last && len(vals) == 1 && vals[0] == nil {
		return
	}
	if s, ok := formatValues(vals, output); ok {
		if w, ok := in.stdout.(lastWriter); ok && last {
			w.WriteLast([]byte(s + "\n"))
			return
		}
		io.WriteString(in.stdout, s+"\n")
	}
}

// lastWriter is an output that can send a cell's last write with the
// reply that follows it (the worker's streamWriter).
type lastWriter interface {
	WriteLast(p []byte) (int, error)
}

// source is code for run: a tree parsed for yaegi (yaegix.ParseStmts or
// ParseDecls, or built around one), else its text; or a program already
// compiled.
type source struct {
	text string
	node ast.Node
	prog *interp.Program
}

// compile compiles src as yaegi's Eval does.
func (in *Interp) compile(src source) (*interp.Program, error) {
	switch {
	case src.prog != nil:
		return src.prog, nil
	case src.node != nil:
		return in.yi.CompileAST(src.node)
	}
	return in.yi.Compile(src.text)
}

// run evaluates source with panics of the interpreter itself turned into
// errors: yaegi v0.16.1 panics on some syntax it does not support.
func (in *Interp) run(ctx context.Context, src source) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &EvalError{Msg: fmt.Sprintf("interpreter: %v", r)}
		}
	}()
	if err := ctx.Err(); err != nil {
		// yaegi cannot stop code begun with a context already done.
		return v, err
	}
	in.stderr.reset()
	v, err = in.evalCancellable(ctx, src)
	if err == nil {
		return v, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return v, ctxErr
	}
	var p interp.Panic
	if errors.As(err, &p) {
		return v, in.panicError(p)
	}
	ev := parsePosError(err.Error(), 0)
	ev.compile = true
	return v, ev
}

func (in *Interp) panicError(p interp.Panic) error {
	if code, ok := yaegix.ExitCode(p.Value); ok {
		return &ExitError{Code: code}
	}
	msg := fmt.Sprint(p.Value)
	if e, ok := p.Value.(error); ok {
		msg = e.Error()
	}
	line, col := in.stderr.position()
	if line == 0 {
		// Not a panic of the user's code: the interpreter's own (log.Panic).
		return &EvalError{Msg: "interpreter: " + msg}
	}
	return errorAt(line, col, "panic: "+msg)
}

// shiftError moves a position error up by the lines the wrapper added. A
// position in those lines is the wrapper's, none of the user's: dropped.
func shiftError(err error, lines int) error {
	var ev *EvalError
	if !errors.As(err, &ev) || ev.Line == 0 {
		return err
	}
	if ev.Line <= lines {
		return &EvalError{Msg: ev.Msg, compile: ev.compile}
	}
	return &EvalError{Line: ev.Line - lines, Col: ev.Col, Msg: ev.Msg, compile: ev.compile}
}

// Close releases the interpreter; a cell still blocked in a native call keeps
// its goroutine until that call returns (only a worker process can end it).
func (in *Interp) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	in.dropRunner()
	return nil
}

// onRunner runs job on the interpreter's runner goroutine, started on
// first use. One goroutine for all of a session's Evals, not one per Eval:
// its stack stays grown to yaegi's depth (a new goroutine grew and copied
// its stack at every cell) and nothing is spawned per cell. Called with
// mu held.
func (in *Interp) onRunner(job func()) {
	if in.jobs == nil {
		jobs := make(chan func())
		go func() {
			for job := range jobs {
				job()
			}
		}()
		in.jobs = jobs
	}
	in.jobs <- job
}

// dropRunner lets the runner goroutine end once its job, if any, returns.
// Called with mu held.
func (in *Interp) dropRunner() {
	if in.jobs != nil {
		close(in.jobs)
		in.jobs = nil
	}
}

// evalCancellable runs src in a goroutine this Interp owns, stopping it with
// yaegi's own mechanism when ctx ends and then waiting (up to StopWait) for
// it to unwind, so that the next cell never runs beside it.
func (in *Interp) evalCancellable(ctx context.Context, src source) (v reflect.Value, err error) {
	done := make(chan struct{})
	cancel := in.ctl.Begin()
	in.onRunner(func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = &EvalError{Msg: fmt.Sprintf("interpreter: %v", r)}
			}
		}()
		// Compiled here too: compiling imports a source package, whose
		// initialisation runs and may need stopping.
		var p *interp.Program
		if p, err = in.compile(src); err == nil {
			v, err = in.exec.Run(p)
		}
	})
	select {
	case <-done:
		return v, err
	case <-ctx.Done():
	}
	in.ctl.Stop(cancel)
	if !in.ctl.Await(done, in.stopWait) {
		// Blocked in a native call (time.Sleep): it runs on when the call
		// returns. Only a worker process can be ended for it.
		in.stuck.Store(true)
		in.dropRunner() // it ends when the blocked call returns
		io.WriteString(in.stderr.w, "warning: the interrupted cell is blocked in a native call and runs on; :reset starts a fresh interpreter\n")
		return reflect.Value{}, ctx.Err()
	}
	in.ctl.AfterStop()
	return reflect.Value{}, ctx.Err()
}

// forgetASTs lets the cell's compiled trees go (see Release.Cut and
// Control.ForgetRoots), unless a stopped cell's goroutine may still be
// compiling.
func (in *Interp) forgetASTs() {
	if !in.stuck.Load() {
		in.release.Cut()
		in.ctl.ForgetRoots()
	}
}

// Stuck reports whether an interrupted cell still runs in a native call.
func (in *Interp) Stuck() bool { return in.stuck.Load() }
