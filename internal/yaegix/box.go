package yaegix

import (
	"reflect"
	"unsafe"
)

// The valueInterface box (see valueiface.go) also says the value's type:
// its node is where the value came from, and the node's typ field is the
// value's *itype. Two boxes of equal values differ (their nodes and
// reflect.Values do), so yaegi's own == of two interfaces was false.

// The categories of yaegi v0.16.1's types (interp.tcat) that say an *itype
// is an interface (or a name of one).
const (
	tcatError     = 13
	tcatInterface = 18
	tcatLinked    = 24
)

// DynType is the dynamic type of a value of interpreted code as a box
// says it: Known when the box named a type that is not an interface, ID
// then identifying that type (two boxes of one type have the same ID).
type DynType struct {
	Known bool
	ID    uintptr
}

// Unbox opens yaegi's boxes around an interface value (they nest), and
// returns the value inside and the type the outermost box that knows one
// says; a value yaegi did not box is returned as it is, with no type.
func Unbox(a any) (DynType, reflect.Value) {
	v := reflect.ValueOf(a)
	var typ DynType
	for v.IsValid() {
		if v.Kind() == reflect.Interface {
			v = v.Elem()
			continue
		}
		t := v.Type()
		if !IsWrapped(t) {
			break
		}
		c := reflect.New(t).Elem()
		c.Set(v)
		if n := c.Field(0); !typ.Known && n.Kind() == reflect.Pointer && !n.IsNil() {
			if it := n.Elem().FieldByName("typ"); it.IsValid() && it.Kind() == reflect.Pointer && !it.IsNil() && !isInterfaceIType(it) {
				typ = DynType{Known: true, ID: it.Pointer()}
			}
		}
		v = *(*reflect.Value)(unsafe.Pointer(c.Field(1).UnsafeAddr()))
	}
	return typ, v
}

// isInterfaceIType reports whether a yaegi *itype is an interface type (a
// box made from a value of static interface type says nothing of the
// dynamic type).
func isInterfaceIType(it reflect.Value) bool {
	for i := 0; i < 100 && it.Kind() == reflect.Pointer && !it.IsNil(); i++ {
		cat := it.Elem().FieldByName("cat")
		if !cat.IsValid() || !cat.CanUint() {
			return true
		}
		switch cat.Uint() {
		case tcatError, tcatInterface:
			return true
		case tcatLinked:
			it = it.Elem().FieldByName("val")
			continue
		}
		return false
	}
	return true
}
