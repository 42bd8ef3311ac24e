package fmtmirror

import (
	"reflect"
	"runtime"
	"testing"
)

func TestTagBoxNamesTheInterfaceValueNotTheArray(t *testing.T) {
	b := NewRebuilder(func(v [2]int) any { return "C" }, nil, nil, nil, "[2]main.Color", false)
	a := TagBox([2]int{1, 2}, b)
	if a != any([2]int{1, 2}) {
		t.Fatalf("TagBox changed the value: %v", a)
	}
	copied := a
	held := []any{a}
	for _, v := range []any{a, copied, elemOf(reflect.ValueOf(held).Index(0))} {
		if name, ok := TaggedTypeName(v); !ok || name != "[2]main.Color" {
			t.Errorf("TaggedTypeName = %q, %v", name, ok)
		}
		if r, ok := rebuiltAny(v, reflect.ValueOf(v), 0, false, false, false); !ok || r != "C" {
			t.Errorf("rebuiltAny = %v, %v", r, ok)
		}
	}
	if _, ok := TaggedTypeName(any([2]int{1, 2})); ok {
		t.Error("an equal array boxed elsewhere is tagged too")
	}
	runtime.KeepAlive(b)
}

func TestTagBoxLeavesPointerShapedAndEmptyArrays(t *testing.T) {
	x := 1
	bp := NewRebuilder(func(v [1]*int) any { return "P" }, nil, nil, nil, "[1]*main.Color", false)
	if _, ok := TaggedTypeName(TagBox([1]*int{&x}, bp)); ok {
		t.Error("a pointer-shaped array was tagged: its data word is the pointer")
	}
	bz := NewRebuilder(func(v [0]int) any { return "Z" }, nil, nil, nil, "[0]main.Color", false)
	if _, ok := TaggedTypeName(TagBox([0]int{}, bz)); ok {
		t.Error("an empty array was tagged: every such box is one address")
	}
	runtime.KeepAlive(bp)
	runtime.KeepAlive(bz)
}
