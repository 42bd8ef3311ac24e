// Package atomic implements the generic type of the standard sync/atomic
// package, Pointer, with a mutex (the interpreter has no unsafe.Pointer
// for the compiled one); the rest of the package is compiled code.
package atomic

import "sync"

// A Pointer is an atomic pointer of type *T; the zero value is nil.
type Pointer[T any] struct {
	mu sync.Mutex
	v  *T
}

// Load atomically loads and returns the value stored in x.
func (x *Pointer[T]) Load() *T {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.v
}

// Store atomically stores val into x.
func (x *Pointer[T]) Store(val *T) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.v = val
}

// Swap atomically stores nv into x and returns the previous value. (No
// parameter is named new: the lowering of named results writes new(T).)
func (x *Pointer[T]) Swap(nv *T) (old *T) {
	x.mu.Lock()
	defer x.mu.Unlock()
	old, x.v = x.v, nv
	return old
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, nv *T) (swapped bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.v != old {
		return false
	}
	x.v = nv
	return true
}
