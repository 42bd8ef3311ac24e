package yaegix

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Exec runs compiled programs of one interpreter without yaegi's copy of
// its whole global frame. yaegi v0.16.1 gives every global variable and
// every temporary of top-level code (2 to 6 per shown expression) a slot
// of one global frame, and Execute's resizeFrame, whenever a compile added
// slots, allocates a frame of exactly the new size and copies all the old
// slots into it: a cell cost more the longer the session (a third of a
// shown expression's CPU after 1,000 cells, most of it the copy's write
// barriers while the collector runs). Exec appends the new slots itself
// before Execute, with the capacity doubling as append does, so that
// resizeFrame finds nothing to do: the same slots, values and indices,
// copied O(log n) times instead of at every cell.
type Exec struct {
	yi    *interp.Interpreter
	mutex *sync.RWMutex    // frame.mutex, held by resizeFrame too
	data  *[]reflect.Value // frame.data, the global frame's slots
	types *[]reflect.Type  // universe.types, their layout
}

// NewExec finds the global frame of yi (the fields are checked as
// NewControl checks its own).
func NewExec(yi *interp.Interpreter) (*Exec, error) {
	v := reflect.ValueOf(yi).Elem()
	frame := v.FieldByName("frame")
	if !frame.IsValid() || frame.Kind() != reflect.Pointer || frame.IsNil() || frame.Type().Elem().Name() != "frame" {
		return nil, fmt.Errorf("%w: field frame", ErrLayout)
	}
	universe := v.FieldByName("universe")
	if !universe.IsValid() || universe.Kind() != reflect.Pointer || universe.IsNil() || universe.Type().Elem().Name() != "scope" {
		return nil, fmt.Errorf("%w: field universe", ErrLayout)
	}
	data := frame.Elem().FieldByName("data")
	mutex := frame.Elem().FieldByName("mutex")
	types := universe.Elem().FieldByName("types")
	switch {
	case !data.IsValid() || data.Type() != reflect.TypeOf([]reflect.Value(nil)):
		return nil, fmt.Errorf("%w: field frame.data", ErrLayout)
	case !mutex.IsValid() || mutex.Type() != reflect.TypeOf(sync.RWMutex{}):
		return nil, fmt.Errorf("%w: field frame.mutex", ErrLayout)
	case !types.IsValid() || types.Type() != reflect.TypeOf([]reflect.Type(nil)):
		return nil, fmt.Errorf("%w: field universe.types", ErrLayout)
	}
	return &Exec{
		yi:    yi,
		mutex: (*sync.RWMutex)(unsafe.Pointer(mutex.UnsafeAddr())),
		data:  (*[]reflect.Value)(unsafe.Pointer(data.UnsafeAddr())),
		types: (*[]reflect.Type)(unsafe.Pointer(types.UnsafeAddr())),
	}, nil
}

// Run executes p (compiled by this interpreter) as yaegi's Execute does,
// the global frame grown in place first. Call it where Execute would be
// called: one program at a time.
func (e *Exec) Run(p *interp.Program) (reflect.Value, error) {
	e.grow()
	return e.yi.Execute(p)
}

// Eval is yaegi's Eval (its compile, then Run).
func (e *Exec) Eval(src string) (reflect.Value, error) {
	p, err := e.yi.Compile(src)
	if err != nil {
		return reflect.Value{}, err
	}
	return e.Run(p)
}

// grow appends the slots the compiles since the last run added, as
// resizeFrame would make them (a new zero value of each slot's type).
func (e *Exec) grow() {
	e.mutex.Lock()
	defer e.mutex.Unlock()
	types, data := *e.types, *e.data
	if len(types) <= len(data) {
		return
	}
	if cap(data) < len(types) {
		grown := make([]reflect.Value, len(data), max(2*cap(data), len(types), 64))
		copy(grown, data)
		data = grown
	}
	for _, t := range types[len(data):] {
		data = append(data, reflect.New(t).Elem())
	}
	*e.data = data
}

// frameLen is the number of slots of the global frame (for tests).
func (e *Exec) frameLen() int {
	e.mutex.RLock()
	defer e.mutex.RUnlock()
	return len(*e.data)
}
