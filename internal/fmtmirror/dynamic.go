package fmtmirror

import (
	"reflect"
	"unicode"
	"unicode/utf8"
)

// Flags of Dynamic.
const (
	// Show: for the REPL's display, where pointers below the top are
	// followed (fmt prints their address).
	Show = 1 << iota
	// Bare: below an unexported field, where fmt calls no method.
	Bare
	// Syntax: for %#v: conv (GoString, Format, or a rebuild in Go
	// syntax) called, other wrappers unwrapped, and interpreted structs
	// conv does not know left as they are (their type's name is unknown).
	Syntax
	// Numeric: for a verb fmt calls only Format for (%d, %f): conv's
	// result is kept only when it is a Formatter (String and Error are
	// not called), and the walk goes on below the others.
	Numeric
)

// maxDynamicDepth bounds how deep Dynamic walks a value (a slice of any
// may hold itself); below it values are handed over as they are.
const maxDynamicDepth = 12

// Dynamic returns a value that prints as Go prints v, a value the front
// end knows only by an interface type: it may hold a value of an
// interpreted type, which yaegi hands native code without its methods
// (see isWrapped), or an interpreted struct, slice or map that holds such
// values. conv is the session's interpreted type switch over its types
// with a String or Error method or parts to rebuild: given a wrapped value
// (or a plain struct), it returns that value formatted by its method or
// rebuilt, or the value itself when none matches.
// depth is where v is in the printed operand (0: at its top).
func Dynamic(v any, depth, flags int, conv func(any) any) any {
	w := walker{conv: conv, show: flags&Show != 0, syntax: flags&Syntax != 0, numeric: flags&Numeric != 0}
	out, _ := w.walk(v, depth, flags&Bare != 0)
	return out
}

type walker struct {
	conv    func(any) any
	show    bool
	syntax  bool
	numeric bool
}

// kept reports whether conv's result r stands for the value: always,
// except for a Numeric verb, which calls no String or Error.
func (w *walker) kept(r any) bool {
	if !w.numeric {
		return true
	}
	_, ok := r.(Formatter)
	return ok
}

// walk returns the mirror of v and whether it differs from v.
func (w *walker) walk(v any, depth int, bare bool) (any, bool) {
	if v == nil || depth > maxDynamicDepth {
		return v, false
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if isWrapped(t) {
		inner := unwrap(rv)
		if inner == nil {
			// A nil interface made any (any(s) of a nil Shape): yaegi
			// panics in reflect on any assertion of it.
			return nil, true
		}
		if !bare && w.conv != nil {
			if r := w.conv(v); (r == nil || !isWrapped(reflect.TypeOf(r))) && w.kept(r) {
				return r, true
			}
		}
		inner, _ = w.walk(inner, depth, bare)
		return inner, true
	}
	if t.Name() != "" {
		if inner, ok := ifaceWrapped(rv); ok && !bare && w.conv != nil && !w.syntax && inner != nil {
			// An error of the session's in an []error: conv knows it by
			// what the wrapper holds, and gives its Format.
			if r, ok := w.conv(inner).(Formatter); ok {
				return r, true
			}
		}
		return v, false // a compiled type prints as it is, with its methods
	}
	if !bare {
		// A slice, map, array or pointer of the session's types the
		// front end tagged where it became an interface (tags.go).
		if r, ok := rebuiltAny(v, rv, depth, w.show, w.syntax, w.numeric); ok {
			return r, true
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		if !bare && w.conv != nil {
			// yaegi stores some values of the session's struct types
			// plain: conv knows them by their layout.
			if r := w.conv(v); reflect.TypeOf(r) != t && w.kept(r) {
				return r, true
			}
		}
		if w.syntax {
			return v, false // its type's name is unknown
		}
		return w.structOf(rv, depth, bare)
	case reflect.Pointer:
		if !bare && w.conv != nil && !rv.IsNil() && t.Elem().Kind() == reflect.Struct {
			// A pointer to a struct of the session's, stored plain:
			// conv knows it by its layout when *T has a method (or, for
			// %#v, always: (*main.T)(0xc000…) below the top, and at the
			// top &main.T{…}, from what it points to).
			if w.syntax && depth == 0 {
				elem := rv.Elem().Interface()
				if r := w.conv(elem); reflect.TypeOf(r) != t.Elem() {
					return NewGoPtr(r), true
				}
			} else if r := w.conv(v); reflect.TypeOf(r) != t && w.kept(r) {
				return r, true
			}
		}
		if rv.IsNil() || depth > 0 && !w.show {
			return v, false // fmt prints the address
		}
		switch t.Elem().Kind() {
		case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
			if elem, changed := w.walk(rv.Elem().Interface(), depth+1, bare); changed {
				return NewPtr(elem), true
			}
		}
	case reflect.Slice, reflect.Array:
		if !mayHold(t.Elem()) {
			return v, false
		}
		var out *List
		for i := range rv.Len() {
			e, changed := w.walk(elemOf(rv.Index(i)), depth+1, bare)
			if changed && out == nil {
				out = NewList(rv.Len())
				for j := range i {
					out.Set(j, elemOf(rv.Index(j)))
				}
			}
			if out != nil {
				out.Set(i, e)
			}
		}
		if out != nil {
			return out.Slice(), true
		}
	case reflect.Map:
		if !mayHold(t.Key()) && !mayHold(t.Elem()) {
			return v, false
		}
		b := NewMapBuilder()
		changed := false
		for it := rv.MapRange(); it.Next(); {
			k, kc := w.walk(elemOf(it.Key()), depth+1, bare)
			e, ec := w.walk(elemOf(it.Value()), depth+1, bare)
			changed = changed || kc || ec
			if kc {
				b.AddMirrored(elemOf(it.Key()), k, e)
			} else {
				b.Add(elemOf(it.Key()), k, e)
			}
		}
		if changed {
			return b.Map(), true
		}
	}
	return v, false
}

// structOf mirrors an interpreted struct: yaegi renamed its unexported
// fields (X prefixed), so it is rebuilt whenever it has one, for %+v.
func (w *walker) structOf(rv reflect.Value, depth int, bare bool) (any, bool) {
	t := rv.Type()
	names := make([]string, t.NumField())
	vals := make([]any, t.NumField())
	changed := false
	for i := range t.NumField() {
		name, exported := goName(t.Field(i).Name)
		names[i] = name
		changed = changed || !exported
		var c bool
		vals[i], c = w.walk(elemOf(rv.Field(i)), depth+1, bare || !exported)
		changed = changed || c
	}
	if !changed {
		return rv.Interface(), false
	}
	return Struct{names, vals}, true
}

// goName is the Go name of a field yaegi named n, and whether it is
// exported: yaegi prefixes X to an unexported name (so an exported field
// named X and a lower-case letter, Xy, is taken for y: yaegi's names
// cannot tell them apart).
func goName(n string) (string, bool) {
	if len(n) > 1 && n[0] == 'X' {
		if r, _ := utf8.DecodeRuneInString(n[1:]); !unicode.IsUpper(r) {
			return n[1:], false
		}
	}
	return n, true
}

// elemOf is what a slice element, map entry or field holds, as an any.
func elemOf(v reflect.Value) any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		return v.Elem().Interface()
	}
	return v.Interface()
}

// mayHold reports whether a value of type t may hold something to mirror.
func mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return true
	}
	return false
}
