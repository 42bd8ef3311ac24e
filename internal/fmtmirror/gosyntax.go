package fmtmirror

import (
	"fmt"
	"io"
	"reflect"
	"strings"
)

// The stand-ins of a %#v operand: fmt prints a value of an interpreted
// type in Go syntax with yaegi's type (`struct { X int }{X:1}`, `[]int{0}`
// for a []main.Color), so the front end rebuilds it with the type names
// Go prints, from the static types. Each prints itself in Go syntax
// whatever the verb: they are made for %#v only.

// GoStruct is a struct: its type's name, field names and field values.
type GoStruct struct {
	Type  string
	Names []string
	Vals  []any
}

// NewGoStruct makes a GoStruct of typ, names (comma-separated) and vals.
func NewGoStruct(typ, names string, vals ...any) any {
	s, ok := NewStruct(names, vals...).(Struct)
	if !ok {
		return vals
	}
	return GoStruct{typ, s.Names, s.Vals}
}

// Format prints T{Name:value, ...}.
func (s GoStruct) Format(f fmt.State, _ rune) {
	io.WriteString(f, s.Type+"{")
	for i, v := range s.Vals {
		if i > 0 {
			io.WriteString(f, ", ")
		}
		io.WriteString(f, s.Names[i]+":")
		writeGo(f, v)
	}
	io.WriteString(f, "}")
}

// GoList is a slice or an array: its type's name and its elements.
type GoList struct {
	Type string
	list *List
}

// NewGoList makes a GoList of typ with n elements, set with Set.
func NewGoList(typ string, n int) *GoList { return &GoList{typ, NewList(n)} }

// Set sets the i'th element.
func (l *GoList) Set(i int, v any) { l.list.Set(i, v) }

// Value is l as a value to print.
func (l *GoList) Value() any { return *l }

// Format prints T{a, b}.
func (l GoList) Format(f fmt.State, _ rune) {
	io.WriteString(f, l.Type+"{")
	for i, v := range l.list.vals {
		if i > 0 {
			io.WriteString(f, ", ")
		}
		writeGo(f, v)
	}
	io.WriteString(f, "}")
}

// GoMap is a map: its type's name, keys and values in Go's order.
type GoMap struct {
	Type string
	m    Map
}

// GoMap is the map b built, named typ, in Go's key order (by the
// original keys).
func (b *MapBuilder) GoMap(typ string) any {
	m, ok := NewMap(b.orig, b.keys, b.vals).(Map)
	if !ok {
		return b.vals
	}
	return GoMap{typ, m}
}

// Format prints T{k:v, k:v}.
func (m GoMap) Format(f fmt.State, _ rune) {
	io.WriteString(f, m.Type+"{")
	for i := range m.m.Keys {
		if i > 0 {
			io.WriteString(f, ", ")
		}
		writeGo(f, m.m.Keys[i])
		io.WriteString(f, ":")
		writeGo(f, m.m.Vals[i])
	}
	io.WriteString(f, "}")
}

// GoPtr is a pointer at the top of the operand: & and what it points to.
type GoPtr struct{ Elem any }

// NewGoPtr makes a GoPtr to elem.
func NewGoPtr(elem any) any { return GoPtr{elem} }

// Format prints &T{...}.
func (p GoPtr) Format(f fmt.State, _ rune) {
	io.WriteString(f, "&")
	writeGo(f, p.Elem)
}

// GoAddr is a pointer below the top, or a nil value of a type that has
// one: (T)(0xc000…), (T)(nil).
type GoAddr struct {
	Type string
	Ptr  uintptr
}

// NewGoAddr makes the GoAddr of p, a pointer, map, slice or func of type
// typ (a nil one when p is nil).
func NewGoAddr(typ string, p any) any {
	a := GoAddr{Type: typ}
	if v := reflect.ValueOf(p); v.IsValid() {
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			a.Ptr = v.Pointer()
		}
	}
	return a
}

// Format prints (T)(0x…) or, for a nil one, (T)(nil); a nil slice, map
// or interface is T(nil), as Go prints them.
func (a GoAddr) Format(f fmt.State, _ rune) {
	switch {
	case a.Ptr != 0:
		fmt.Fprintf(f, "(%s)(0x%x)", a.Type, a.Ptr)
	case strings.HasPrefix(a.Type, "*") || strings.HasPrefix(a.Type, "func") || strings.HasPrefix(a.Type, "chan") || strings.HasPrefix(a.Type, "<-chan"):
		fmt.Fprintf(f, "(%s)(nil)", a.Type)
	default:
		fmt.Fprintf(f, "%s(nil)", a.Type)
	}
}

// GoText is what a GoString method returned.
type GoText string

// Format prints the text as it is.
func (t GoText) Format(f fmt.State, _ rune) { io.WriteString(f, string(t)) }

// NewGoText makes a GoText.
func NewGoText(s string) any { return GoText(s) }

// writeGo prints v in Go syntax.
func writeGo(w io.Writer, v any) {
	fmt.Fprintf(w, "%#v", v)
}
