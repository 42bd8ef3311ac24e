package fmtmirror

import (
	"reflect"
	"testing"
)

func TestLocalRebuilderTagsAStructInABoxOfItsOwn(t *testing.T) {
	type l struct{ C, N int }
	made := 0
	c := NewLocalRebuilder()
	mk := func() *Rebuilder {
		made++
		return NewRebuilder(func(v l) any { return "L" }, nil, nil, nil, "main.L", false)
	}
	a := TagBox(l{1, 2}, c.Get(mk))
	b := TagBox(l{3, 4}, c.Get(mk))
	if made != 1 {
		t.Errorf("the rebuilder was made %d times; want 1", made)
	}
	for _, v := range []any{a, b} {
		if name, ok := TaggedTypeName(v); !ok || name != "main.L" {
			t.Errorf("TaggedTypeName = %q, %v; want main.L", name, ok)
		}
		if r, ok := rebuiltAny(v, reflect.ValueOf(v), 0, false, false, false); !ok || r != "L" {
			t.Errorf("rebuiltAny = %v, %v; want L", r, ok)
		}
	}
	if _, ok := TaggedTypeName(any(l{1, 2})); ok {
		t.Error("an equal struct boxed elsewhere is tagged too")
	}
}
