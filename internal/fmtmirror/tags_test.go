package fmtmirror

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"weak"
)

// A tagged slice is rebuilt by its rebuilder; a subslice of it too (the
// same backing array, which has one element type), an untagged one and a
// value of another native type at the same address are not.
func TestTagLookup(t *testing.T) {
	b := NewRebuilder(func(v []int) any { return fmt.Sprint("C", v) }, nil, nil, nil, "[]main.Color", false)
	s := []int{1, 2}
	Tag(s, b)
	if r, ok := rebuilt(reflect.ValueOf(s), 0, false, false); !ok || r != "C[1 2]" {
		t.Fatalf("tagged slice: %v %v", r, ok)
	}
	if _, ok := rebuilt(reflect.ValueOf(s), 0, false, true); ok {
		t.Error("a rebuilder without syntax rebuilt for Go syntax")
	}
	if name, ok := TaggedTypeName(s); !ok || name != "[]main.Color" {
		t.Errorf("%%T: %q %v", name, ok)
	}
	if _, ok := rebuilt(reflect.ValueOf([]int{1, 2}), 0, false, false); ok {
		t.Error("an untagged slice was found")
	}
	// Another native type at the same address: not this entry.
	u := reflect.NewAt(reflect.TypeFor[[]uint](), reflect.ValueOf(&s).UnsafePointer()).Elem()
	if _, ok := rebuilt(u, 0, false, false); ok {
		t.Error("a []uint over a tagged []int's array was found")
	}
	// A rebuilder of another type is refused at Tag.
	m := map[string]int{"a": 1}
	Tag(m, b)
	if _, ok := rebuilt(reflect.ValueOf(m), 0, false, false); ok {
		t.Error("a map tagged with a slice's rebuilder was found")
	}
	runtime.KeepAlive(s)
}

// The table keeps nothing alive: neither a tagged value nor its
// session's rebuilder (it holds both weakly), and a value whose rebuilder
// was collected is not rebuilt.
func TestTagWeak(t *testing.T) {
	k := tagCollected()
	runtime.GC()
	runtime.GC()
	tags.mu.Lock()
	e := tags.ring[tags.index[k]]
	tags.mu.Unlock()
	if e.ref.Value() != nil || e.by.Value() != nil {
		t.Error("the table kept a tagged value or its rebuilder alive")
	}
	q := tagWithCollectedRebuilder()
	runtime.GC()
	runtime.GC()
	if _, ok := rebuilt(reflect.ValueOf(q), 0, false, false); ok {
		t.Error("a value whose rebuilder was collected was rebuilt")
	}
	runtime.KeepAlive(q)
}

//go:noinline
func tagCollected() tagKey {
	p := new([4]int)
	Tag(p, NewRebuilder(func(v *[4]int) any { return "tagged" }, nil, nil, nil, "*[4]main.Color", true))
	return tagKey{reflect.ValueOf(p).Pointer(), reflect.TypeFor[*[4]int]()}
}

//go:noinline
func tagWithCollectedRebuilder() *[4]int {
	q := new([4]int)
	Tag(q, NewRebuilder(func(v *[4]int) any { return "tagged" }, nil, nil, nil, "*[4]main.Color", true))
	return q
}

// A pointer's rebuilder is used only at the top of an operand (fmt prints
// the address below it), and the display's (show) everywhere.
func TestTagPointerTop(t *testing.T) {
	b := NewRebuilder(func(v *[]int) any { return "top" }, nil, nil, nil, "*[]main.Color", true)
	p := &[]int{1}
	Tag(p, b)
	if _, ok := rebuilt(reflect.ValueOf(p), 1, false, false); ok {
		t.Error("a tagged pointer below the top was rebuilt for fmt")
	}
	if r, ok := rebuilt(reflect.ValueOf(p), 1, true, false); !ok || r != "top" {
		t.Errorf("display below the top: %v %v", r, ok)
	}
	runtime.KeepAlive(b)
}

// The table is bounded: past maxTags entries the oldest are dropped.
func TestTagBounded(t *testing.T) {
	table := &tagTable{index: map[tagKey]int{}}
	b := NewRebuilder(func(v []int) any { return "t" }, nil, nil, nil, "[]main.Color", false)
	keep := make([][]int, maxTags+10)
	for i := range keep {
		keep[i] = []int{i}
		rv := reflect.ValueOf(keep[i])
		p, _ := identity(rv)
		table.add(tagKey{uintptr(p), rv.Type()}, weak.Make((*byte)(p)), weak.Make(b))
	}
	if n, ring := len(table.index), len(table.ring); n > maxTags || ring > maxTags {
		t.Errorf("table holds %d entries in a ring of %d; bound %d", n, ring, maxTags)
	}
	if _, ok := table.lookup(reflect.ValueOf(keep[0])); ok {
		t.Error("the oldest entry was kept past the bound")
	}
	if _, ok := table.lookup(reflect.ValueOf(keep[len(keep)-1])); !ok {
		t.Error("the newest entry was dropped")
	}
	runtime.KeepAlive(keep)
	runtime.KeepAlive(b)
}

// wrapperLike is the shape of yaegi's wrapper of a value converted to
// fmt.Stringer.
type wrapperLike struct {
	IValue  any
	WString func() string
}

func (w wrapperLike) String() string { return w.WString() }

// A wrapper tagged with a type's name is named by it, copies of it too;
// another wrapper of the same value is not, nor one whose method is not
// a reflect.MakeFunc closure (interpreted methods are).
func TestTagIface(t *testing.T) {
	mk := func() wrapperLike {
		f := reflect.MakeFunc(reflect.TypeFor[func() string](), func([]reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.ValueOf("c1")}
		})
		return wrapperLike{IValue: 1, WString: f.Interface().(func() string)}
	}
	w := mk()
	TagIface(w, "main.Color")
	copied := w
	if name, ok := TaggedIfaceName(copied); !ok || name != "main.Color" {
		t.Errorf("copy of a tagged wrapper: %q %v", name, ok)
	}
	if _, ok := TaggedIfaceName(mk()); ok {
		t.Error("an untagged wrapper of the same value was named")
	}
	plain := wrapperLike{IValue: 1, WString: func() string { return "x" }}
	TagIface(plain, "main.Weekday")
	if _, ok := TaggedIfaceName(plain); ok {
		t.Error("a wrapper whose method is no MakeFunc closure was tagged")
	}
	if _, ok := TaggedIfaceName(1); ok {
		t.Error("a plain int was named")
	}
}
