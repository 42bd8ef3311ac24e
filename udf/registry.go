// Package udf holds the user-defined functions of a session: a registry that
// checks each function's signature when it is registered, the "udf" package
// offered to the session's interpreter (Exports), and Run, which streams
// records through a function in parallel and writes the results in input order.
package udf

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Registry holds the UDFs of one session by name. The zero Registry is empty
// and ready to use. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex // protects funcs
	funcs map[string]*Func
}

// Entry describes a registered function for listings such as :udfs.
type Entry struct {
	Name      string // as registered
	Signature string // e.g. "func(string) string"
}

// String returns the entry as "name signature", e.g. "clean func(string) string".
func (e Entry) String() string { return e.Name + " " + e.Signature }

// Register checks fn and registers it under name. A function already
// registered under that name is replaced: the newer wins, and replaced says so.
// The error, if any, is one line starting with "udf: ".
func (r *Registry) Register(name string, fn any) (replaced bool, err error) {
	f, err := newFunc(name, fn)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.funcs == nil {
		r.funcs = make(map[string]*Func)
	}
	_, replaced = r.funcs[name]
	r.funcs[name] = f
	return replaced, nil
}

// Lookup returns the function registered under name.
func (r *Registry) Lookup(name string) (*Func, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.funcs[name]
	return f, ok
}

// List returns the registered functions sorted by name.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	list := make([]Entry, 0, len(r.funcs))
	for _, f := range r.funcs {
		list = append(list, Entry{Name: f.name, Signature: f.sig})
	}
	r.mu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// Func is a registered function with its checked signature. It is immutable,
// so a Func returned by Lookup stays valid after its name is registered again.
type Func struct {
	name string
	sig  string
	val  reflect.Value
	typ  reflect.Type

	lineArg bool // the record's line itself is the only argument
	value   int  // index of the value result, or -1 if there is none
	errRes  int  // index of the error result, or -1 if there is none

	// Fast paths that skip reflect, set when the signature allows.
	str    func(string) string
	strErr func(string) (string, error)
}

// Name returns the name the function was registered under.
func (f *Func) Name() string { return f.name }

// Signature returns the function's type, e.g. "func(string) string".
// Types declared in interpreted code appear as their structure, e.g.
// "func(struct { A int }) string".
func (f *Func) Signature() string { return f.sig }

var (
	errorType      = reflect.TypeFor[error]()
	strFuncType    = reflect.TypeFor[func(string) string]()
	strErrFuncType = reflect.TypeFor[func(string) (string, error)]()
)

// newFunc checks fn for use as a UDF named name.
func newFunc(name string, fn any) (*Func, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("udf: %q: got nil, want a function", name)
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return nil, fmt.Errorf("udf: %q: got %s, want a function", name, t)
	}
	if v.IsNil() {
		return nil, fmt.Errorf("udf: %q: got a nil %s", name, t)
	}
	if t.IsVariadic() {
		return nil, fmt.Errorf("udf: %q: %s is variadic; want a fixed number of arguments", name, t)
	}
	for i := range t.NumIn() {
		if why := notJSON(t.In(i), true); why != "" {
			return nil, fmt.Errorf("udf: %q: argument %d is %s; records carry only JSON values", name, i+1, why)
		}
	}
	f := &Func{name: name, sig: t.String(), val: v, typ: t, value: -1, errRes: -1}
	switch n := t.NumOut(); {
	case n > 2:
		return nil, fmt.Errorf("udf: %q: %s has %d results; want at most a value and an error", name, t, n)
	case n == 2 && t.Out(1) != errorType:
		return nil, fmt.Errorf("udf: %q: second result of %s is %s; want error", name, t, t.Out(1))
	case n == 2 && t.Out(0) == errorType:
		return nil, fmt.Errorf("udf: %q: %s has two error results; want at most a value and an error", name, t)
	case n == 2:
		f.value, f.errRes = 0, 1
	case n == 1 && t.Out(0) == errorType:
		f.errRes = 0
	case n == 1:
		f.value = 0
	}
	if f.value >= 0 {
		if why := notJSON(t.Out(f.value), false); why != "" {
			return nil, fmt.Errorf("udf: %q: result is %s; results are written as JSON", name, why)
		}
	}
	f.lineArg = t.NumIn() == 1 && t.In(0).Kind() == reflect.String &&
		f.value == 0 && t.Out(0).Kind() == reflect.String
	switch {
	case t.ConvertibleTo(strFuncType):
		f.str = v.Convert(strFuncType).Interface().(func(string) string)
	case t.ConvertibleTo(strErrFuncType):
		f.strErr = v.Convert(strErrFuncType).Interface().(func(string) (string, error))
	}
	return f, nil
}

func checkName(name string) error {
	if name == "" {
		return errors.New("udf: empty name")
	}
	if strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("udf: name %q: want no spaces or control characters", name)
	}
	return nil
}

// notJSON says why values of type t can't travel as JSON, or returns "".
// JSON decodes into an interface only if it has no methods (arg); it encodes
// any interface. It looks at t itself only: a channel deep inside a struct
// fails per record.
func notJSON(t reflect.Type, arg bool) string {
	switch t.Kind() {
	case reflect.Chan:
		return "a channel (" + t.String() + ")"
	case reflect.Func:
		return "a function (" + t.String() + ")"
	case reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return t.String()
	case reflect.Interface:
		if arg && t.NumMethod() > 0 {
			return "the interface " + t.String()
		}
	}
	return ""
}
