// Package fmtmirror holds the native values that stand in for values of
// interpreted types when they are handed to fmt (and to the REPL's pretty
// printer). yaegi gives native code an interpreted struct without its
// methods, with its unexported fields renamed, and with interface fields as
// its own internal wrappers; the front end (package lower) rebuilds such a
// value from the static types, each part already formatted by its own
// String or Error method, out of these types, which print as Go prints the
// original: a Struct as {a b} or {A:a B:b}, a Ptr as &..., a Map as
// map[k:v] in Go's key order.
package fmtmirror

import (
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// Struct is a struct value: its field names and the mirrored field values.
type Struct struct {
	Names []string
	Vals  []any
}

// NewStruct makes a Struct of names (comma-separated) and vals.
func NewStruct(names string, vals ...any) any {
	var ns []string
	if names != "" {
		ns = strings.Split(names, ",")
	}
	if len(ns) != len(vals) {
		return vals // a front-end bug; show the values rather than fail
	}
	return Struct{ns, vals}
}

// Format prints s as fmt prints a struct: each field with the same verb
// and flags, field names for %+v.
func (s Struct) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	io.WriteString(f, "{")
	for i, v := range s.Vals {
		if i > 0 {
			io.WriteString(f, " ")
		}
		if verb == 'v' && f.Flag('+') {
			io.WriteString(f, s.Names[i]+":")
		}
		writeNested(f, format, v)
	}
	io.WriteString(f, "}")
}

// writeNested prints v as fmt prints a value below the top: a nil
// interface as <nil>, a pointer without methods as its address.
func writeNested(w io.Writer, format string, v any) {
	if v == nil {
		io.WriteString(w, "<nil>")
		return
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !hasMethods(v) {
		if rv.IsNil() {
			io.WriteString(w, "<nil>")
			return
		}
		fmt.Fprintf(w, "0x%x", rv.Pointer())
		return
	}
	fmt.Fprintf(w, format, v)
}

func hasMethods(v any) bool {
	switch v.(type) {
	case fmt.Formatter, fmt.Stringer, error:
		return true
	}
	return false
}

// Ptr is a pointer at the top of a printed value: & and what it points to.
type Ptr struct{ Elem any }

// NewPtr makes a Ptr to elem.
func NewPtr(elem any) any { return Ptr{elem} }

// Format prints & and the element with the same verb.
func (p Ptr) Format(f fmt.State, verb rune) {
	io.WriteString(f, "&")
	fmt.Fprintf(f, fmt.FormatString(f, verb), p.Elem)
}

// Map is a map whose keys are mirrored: the keys and values, in Go's
// printing order (by the original keys).
type Map struct {
	Keys, Vals []any
}

// NewMap makes a Map of the original keys (for the order), the mirrored
// keys and the mirrored values.
func NewMap(orig, keys, vals []any) any {
	if len(orig) != len(keys) || len(keys) != len(vals) {
		return vals
	}
	idx := make([]int, len(orig))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return CompareKeys(reflect.ValueOf(orig[a]), reflect.ValueOf(orig[b])) })
	m := Map{make([]any, len(idx)), make([]any, len(idx))}
	for i, j := range idx {
		m.Keys[i], m.Vals[i] = keys[j], vals[j]
	}
	return m
}

// CompareKeys orders keys of basic kinds as fmt does (internal/fmtsort);
// others compare equal (a stable sort keeps their order).
func CompareKeys(a, b reflect.Value) int {
	if !a.IsValid() || !b.IsValid() || a.Kind() != b.Kind() {
		return 0
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case a.Bool():
			return 1
		}
		return -1
	}
	return 0
}

// Format prints m as fmt prints a map.
func (m Map) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	io.WriteString(f, "map[")
	for i := range m.Keys {
		if i > 0 {
			io.WriteString(f, " ")
		}
		writeNested(f, format, m.Keys[i])
		io.WriteString(f, ":")
		writeNested(f, format, m.Vals[i])
	}
	io.WriteString(f, "]")
}

// Value returns v: a call through it turns an interpreted value into the
// plain value native code sees.
func Value(v any) any { return v }

// List builds a slice of native values. Interpreted code fills it through
// its methods: an []any made by yaegi may hold its own wrappers, which
// reflect cannot store native values into.
type List struct{ vals []any }

// NewList makes a List of n values.
func NewList(n int) *List { return &List{make([]any, max(n, 0))} }

// Set sets the i'th value.
func (l *List) Set(i int, v any) {
	if i >= 0 && i < len(l.vals) {
		l.vals[i] = v
	}
}

// Slice is the values, as fmt prints a slice.
func (l *List) Slice() any { return l.vals }

// MapBuilder builds a map's mirror entry by entry.
type MapBuilder struct {
	orig, keys, vals []any
	mirrored         bool // a key is not its original
}

// NewMapBuilder makes an empty MapBuilder.
func NewMapBuilder() *MapBuilder { return &MapBuilder{} }

// Add adds an entry: the original key (for the order), its mirror and the
// mirrored value.
func (b *MapBuilder) Add(orig, key, val any) {
	b.orig = append(b.orig, orig)
	b.keys = append(b.keys, key)
	b.vals = append(b.vals, val)
}

// AddMirrored is Add for a key that is rebuilt too.
func (b *MapBuilder) AddMirrored(orig, key, val any) {
	b.mirrored = true
	b.Add(orig, key, val)
}

// Map is the mirror: a native map of the original keys when they print as
// they are (fmt then orders them as Go does), else a Map.
func (b *MapBuilder) Map() any {
	if !b.mirrored {
		var kt reflect.Type
		same := true
		for _, k := range b.orig {
			t := reflect.TypeOf(k)
			if kt == nil {
				kt = t
			}
			same = same && t != nil && t == kt && t.Comparable()
		}
		if same && kt != nil {
			m := reflect.MakeMapWithSize(reflect.MapOf(kt, reflect.TypeFor[any]()), len(b.orig))
			for i, k := range b.orig {
				v := reflect.New(reflect.TypeFor[any]()).Elem()
				if b.vals[i] != nil {
					v.Set(reflect.ValueOf(b.vals[i]))
				}
				m.SetMapIndex(reflect.ValueOf(k), v)
			}
			return m.Interface()
		}
	}
	return NewMap(b.orig, b.keys, b.vals)
}

// Formatter is a value of an interpreted type with a Format method, as
// its method value: fmt calls it for every verb (yaegi hands fmt the value
// without the method below the top of an operand).
type Formatter func(fmt.State, rune)

// NewFormatter makes a Formatter of format, a method value; nil (printed
// <nil>) when there is none.
func NewFormatter(format func(fmt.State, rune)) any {
	if format == nil {
		return nil
	}
	return Formatter(format)
}

// Format calls the method.
func (f Formatter) Format(s fmt.State, verb rune) { f(s, verb) }
