package fmtmirror

import (
	"reflect"
	"unsafe"
	"weak"
)

// An array of the session's types stored in an interface (`var a any =
// [2]Color{}`) is, to yaegi and to native code, a plain [2]int, and has
// no identity of its own to tag as a slice has: converting it to an
// interface copies it. The interface value has one, though: the box its
// data word points to, which every copy of the interface shares (an
// assignment, an argument, reflect.Value.Elem then Interface) and nothing
// ever writes again. So the front end makes the interface value itself
// (TagBox, given the session's Rebuilder of the array's type) in a box of
// its own, and tags that box; Dynamic and %T look an interface holding an
// array up by its data word. So are structs of types declared in a
// function (localrebuilder.go).

// TagBox returns v, a value of the type b rebuilds, as an interface
// value in a box of its own, tagged as of b's type.
func TagBox(v any, b *Rebuilder) any {
	if v == nil || b == nil {
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Type() != b.in {
		return v
	}
	out, p := rebox(rv)
	if p == nil {
		return v
	}
	k := tagKey{uintptr(p), rv.Type()}
	tags.add(k, weak.Make((*byte)(p)), weak.Make(b))
	return out
}

// lookupBox returns the rebuilder of the interface value v's type when
// v's box was tagged by TagBox and is alive.
func (t *tagTable) lookupBox(v any) (*Rebuilder, bool) {
	if v == nil || t.n.Load() == 0 {
		return nil, false
	}
	typ := reflect.TypeOf(v)
	if typ.Kind() != reflect.Array && typ.Kind() != reflect.Struct || !boxed(typ) {
		return nil, false
	}
	p := boxOf(v)
	if p == nil {
		return nil, false
	}
	return t.lookupAt(p, typ)
}

// rebox is rv copied into an interface value of a box of its own, with
// that box's address; nil when rv's type has no box (boxed).
func rebox(rv reflect.Value) (any, unsafe.Pointer) {
	if !boxed(rv.Type()) {
		return nil, nil
	}
	c := reflect.New(rv.Type()).Elem()
	c.Set(rv)
	out := c.Interface() // an addressable value: copied into a new box
	return out, boxOf(out)
}

// boxOf is the data word of the interface value v.
func boxOf(v any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}

// boxed reports whether an interface holding a value of t points to a
// box of its own: t is not pointer-shaped (its value is then the data
// word itself) and not of size zero (every such box is one address).
func boxed(t reflect.Type) bool {
	return t.Size() > 0 && !pointerShaped(t, 0)
}

// pointerShaped reports whether the runtime stores a value of t in an
// interface's data word directly.
func pointerShaped(t reflect.Type, depth int) bool {
	if depth > 32 {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() == 1 && pointerShaped(t.Elem(), depth+1)
	case reflect.Struct:
		return t.NumField() == 1 && pointerShaped(t.Field(0).Type, depth+1)
	}
	return false
}
