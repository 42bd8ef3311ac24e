package yaegix

import (
	"errors"
	"fmt"
	"go/build"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Control drives the cancellation fields of a yaegi Interpreter, as its
// own EvalWithContext does, so that the host runs each cell in a goroutine it
// owns and can wait for. EvalWithContext returns at an interrupt while its
// goroutine still unwinds the stopped cell; the next cell then raced with it
// on the interpreter's frames ("invalid base"), and nothing could be waited
// on. yaegi v0.16.1 exports no stop, hence reflect and unsafe here, checked
// field by field at start (a yaegi upgrade that changes them fails loudly in
// NewControl, and in its test).
type Control struct {
	yi         *interp.Interpreter
	id         *uint64        // the run id; a cell stops when it changes
	mutex      *sync.RWMutex  // guards done and cancelChan for yaegi
	done       *chan struct{} // closed to cancel channel operations
	cancelChan *bool          // enables cancellable channel operations
	// roots is the list of every AST yaegi ever compiled (interp.roots,
	// read only by its debugger): it keeps each cell's nodes, also of a
	// compile that failed, for the session's life (~10 KB a compile).
	roots *[]unsafe.Pointer
}

// ErrLayout says yaegi's Interpreter does not have the unexported fields
// this package drives: the yaegi version is not the one it was written for.
var ErrLayout = errors.New("yaegix: yaegi's Interpreter is not laid out as this build expects (check internal/yaegix against the yaegi version)")

// NewControl finds the fields of yi that stop a cell.
func NewControl(yi *interp.Interpreter) (*Control, error) {
	v := reflect.ValueOf(yi).Elem()
	field := func(name string, want reflect.Type) (unsafe.Pointer, error) {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Type() != want {
			return nil, fmt.Errorf("%w: field %s", ErrLayout, name)
		}
		return unsafe.Pointer(f.UnsafeAddr()), nil
	}
	c := Control{yi: yi}
	var err error
	var p unsafe.Pointer
	if p, err = field("id", reflect.TypeOf(uint64(0))); err != nil {
		return nil, err
	}
	c.id = (*uint64)(p)
	if p, err = field("mutex", reflect.TypeOf(sync.RWMutex{})); err != nil {
		return nil, err
	}
	c.mutex = (*sync.RWMutex)(p)
	if p, err = field("done", reflect.TypeOf(make(chan struct{}))); err != nil {
		return nil, err
	}
	c.done = (*chan struct{})(p)
	if p, err = field("cancelChan", reflect.TypeOf(true)); err != nil {
		return nil, err
	}
	c.cancelChan = (*bool)(p)
	roots := v.FieldByName("roots")
	if !roots.IsValid() || roots.Kind() != reflect.Slice || roots.Type().Elem().Kind() != reflect.Pointer || roots.Type().Elem().Elem().Name() != "node" {
		return nil, fmt.Errorf("%w: field roots", ErrLayout)
	}
	c.roots = (*[]unsafe.Pointer)(unsafe.Pointer(roots.UnsafeAddr()))
	return &c, nil
}

// ForgetRoots drops yaegi's list of compiled ASTs: what a cell declared
// stays reachable from the interpreter's scopes, the rest (the wrappers
// tried and the statements run) becomes garbage. Call it only while no
// compile runs.
func (c *Control) ForgetRoots() { *c.roots = nil }

// Begin arms a cell for cancellation (yaegi's EvalWithContext prologue).
func (c *Control) Begin() chan struct{} {
	done := make(chan struct{})
	c.mutex.Lock()
	*c.done = done
	*c.cancelChan = true
	c.mutex.Unlock()
	return done
}

// Stop stops the running cell (yaegi's Interpreter.stop): interpreted code
// checks the run id at every step, and channel operations select on done.
func (c *Control) Stop(done chan struct{}) {
	atomic.AddUint64(c.id, 1)
	close(done)
}

// stopRepeat is how often Await stops a stopped cell again.
const stopRepeat = 5 * time.Millisecond

// Await waits up to wait for a stopped cell to return (ended closed),
// stopping it again every few milliseconds: yaegi's Execute takes the run
// id afresh when it starts, so a Stop that came while the cell still
// compiled is lost and the cell would run on. It reports whether the cell
// returned in time (not if blocked in a native call).
func (c *Control) Await(ended <-chan struct{}, wait time.Duration) bool {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(stopRepeat)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			return true
		case <-tick.C:
			atomic.AddUint64(c.id, 1)
		case <-deadline.C:
			return false
		}
	}
}

// AfterStop sets the interpreter right once a stopped cell has returned:
// until the next Eval, interpreted functions called from Go (UDFs) return
// zero values. An empty Eval is enough.
func (c *Control) AfterStop() { c.yi.Eval("") }

// SetDir points an interpreter made before its session was known at
// the session's directory: yaegi's GOPATH (where "P" of an uploaded package
// is found) and the HOME the code sees. interp.New takes both as options
// only; the fields are checked as NewControl checks its own.
func SetDir(yi *interp.Interpreter, goPath, home string) error {
	opt := reflect.ValueOf(yi).Elem().FieldByName("opt")
	if !opt.IsValid() || opt.Kind() != reflect.Struct {
		return fmt.Errorf("%w: field opt", ErrLayout)
	}
	ctx := opt.FieldByName("context")
	env := opt.FieldByName("env")
	if !ctx.IsValid() || ctx.Type() != reflect.TypeOf(build.Context{}) {
		return fmt.Errorf("%w: field opt.context", ErrLayout)
	}
	if !env.IsValid() || env.Type() != reflect.TypeOf(map[string]string{}) {
		return fmt.Errorf("%w: field opt.env", ErrLayout)
	}
	(*build.Context)(unsafe.Pointer(ctx.UnsafeAddr())).GOPATH = goPath
	m := *(*map[string]string)(unsafe.Pointer(env.UnsafeAddr()))
	if m == nil {
		return fmt.Errorf("%w: opt.env is nil", ErrLayout)
	}
	m["HOME"] = home // the map yaegi's os.Getenv reads
	return nil
}

// SetEnv adds env (NAME=VALUE entries) to the environment an interpreter's
// code sees (os.Getenv), the map SetDir writes HOME into: interp.New takes
// it as an option only. HOME stays the one SetDir or interp.New gave.
func SetEnv(yi *interp.Interpreter, env []string) error {
	if len(env) == 0 {
		return nil
	}
	f := reflect.ValueOf(yi).Elem().FieldByName("opt")
	if f.IsValid() && f.Kind() == reflect.Struct {
		f = f.FieldByName("env")
	}
	if !f.IsValid() || f.Type() != reflect.TypeOf(map[string]string{}) {
		return fmt.Errorf("%w: field opt.env", ErrLayout)
	}
	m := *(*map[string]string)(unsafe.Pointer(f.UnsafeAddr()))
	if m == nil {
		return fmt.Errorf("%w: opt.env is nil", ErrLayout)
	}
	for _, kv := range env {
		if name, value, _ := strings.Cut(kv, "="); name != "HOME" {
			m[name] = value
		}
	}
	return nil
}
