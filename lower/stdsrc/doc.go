// Package stdsrc holds this project's implementations of the generic
// standard packages slices, maps, cmp and iter (Go 1.26 API), and of the
// generic parts of sync (OnceValue, OnceValues) and sync/atomic (Pointer), written for
// the lower package: it type-checks them and instantiates their functions
// per type arguments, as it does for generic code typed at the prompt.
// They use only what the lowering and yaegi handle: no range over
// functions, no min or max, helpers generic too.
package stdsrc
