package sandbox

import (
	"os"
	"reflect"
	"sort"
	"testing"
)

// fdTaker reports whether a function of type t turns a number or a pointer
// into something to act on: a uintptr or unsafe.Pointer argument (a
// descriptor number, an address), or an *os.File argument (net.FileConn).
func fdTaker(t reflect.Type) bool {
	if t.Kind() != reflect.Func {
		return false
	}
	file := reflect.TypeOf((*os.File)(nil))
	for i := range t.NumIn() {
		switch in := t.In(i); {
		case in.Kind() == reflect.Uintptr, in.Kind() == reflect.UnsafePointer, in == file:
			return true
		case in.Kind() == reflect.Pointer && in.Elem().Kind() == reflect.UnsafePointer:
			return true
		}
	}
	return false
}

// fdTakersAllowed are the functions of the default tables with such an
// argument that still reach no descriptor: a program counter, an address
// held by the code's own atomic variable.
var fdTakersAllowed = map[string]bool{
	"log/slog/slog.NewRecord":                  true, // a program counter, for the source line
	"runtime/runtime.FuncForPC":                true,
	"sync/atomic/atomic.AddUintptr":            true,
	"sync/atomic/atomic.CompareAndSwapUintptr": true,
	"sync/atomic/atomic.LoadUintptr":           true,
	"sync/atomic/atomic.StoreUintptr":          true,
	"sync/atomic/atomic.SwapUintptr":           true,
	// Of *unsafe.Pointer: the code cannot name unsafe.Pointer without
	// importing unsafe, nor turn one into a pointer (reflect.NewAt is out).
	"sync/atomic/atomic.CompareAndSwapPointer": true,
	"sync/atomic/atomic.LoadPointer":           true,
	"sync/atomic/atomic.StorePointer":          true,
	"sync/atomic/atomic.SwapPointer":           true,
	"runtime/runtime.SetCgoTraceback":          true, // a no-op without cgo tracebacks
}

// No function of the symbol tables the code sees takes a descriptor
// number or a file to make a connection of, with the default allowlist and
// with every network package allowed: os.NewFile(3, "") was the worker's
// protocol socket.
func TestNoSymbolTakesADescriptor(t *testing.T) {
	for _, allow := range []Allowlist{NewAllowlist(nil), NewAllowlist([]string{"net/..."}), NewAllowlist(nil).InWorker()} {
		var bad []string
		for key, syms := range allow.Exports() {
			for name, v := range syms {
				if v.Kind() == reflect.Func && fdTaker(v.Type()) && !fdTakersAllowed[key+"."+name] {
					bad = append(bad, key+"."+name)
				}
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("allow %v: functions that take a descriptor, a file or an address: %v", allow.extra, bad)
		}
	}
	for _, gone := range []struct{ key, name string }{
		{"os/os", "NewFile"}, {"reflect/reflect", "NewAt"}, {"net/net", "FileConn"},
	} {
		if _, ok := NewAllowlist([]string{"net"}).Exports()[gone.key][gone.name]; ok {
			t.Errorf("%s.%s is offered to the code", gone.key, gone.name)
		}
	}
}
