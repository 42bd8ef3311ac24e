package fmtmirror

import (
	"reflect"
	"testing"
)

func TestTagNameNamesTheBoxNotTheValue(t *testing.T) {
	c := TagName(1.5, "main.Celsius")
	if c != any(1.5) {
		t.Fatalf("TagName changed the value: %v", c)
	}
	held := []any{c}
	for _, v := range []any{c, elemOf(reflect.ValueOf(held).Index(0))} {
		if name, ok := TaggedTypeName(v); !ok || name != "main.Celsius" {
			t.Errorf("TaggedTypeName = %q, %v; want main.Celsius", name, ok)
		}
	}
	if name, ok := TaggedTypeName(any(1.5)); ok {
		t.Errorf("an equal float64 boxed elsewhere is named %q", name)
	}
	x := 1
	if _, ok := TaggedTypeName(TagName(&x, "*main.N")); ok {
		t.Error("a pointer was named by its box: its data word is the pointer")
	}
}

func TestTagPointerNameIsByTargetAndType(t *testing.T) {
	type pair struct{ a, b float64 }
	s := &pair{1, 2}
	p := TagPointerName(&s.a, "*main.Celsius")
	if name, ok := TaggedTypeName(p); !ok || name != "*main.Celsius" {
		t.Errorf("TaggedTypeName = %q, %v; want *main.Celsius", name, ok)
	}
	if name, ok := TaggedTypeName(s); ok {
		t.Errorf("a pointer of another type to the same address is named %q", name)
	}
	other := 1.0
	if _, ok := TaggedTypeName(&other); ok {
		t.Error("a pointer to another float64 is named")
	}
}

func TestSameRecordedTypeTellsNamedFromPlain(t *testing.T) {
	c, f := TagName(2.0, "main.Celsius"), TagName(2.0, "main.Meters")
	for _, tc := range []struct {
		name string
		a, b any
		want bool
	}{
		{"named-and-plain", c, any(2.0), false},
		{"two-names", c, f, false},
		{"one-name", c, TagName(2.0, "main.Celsius"), true},
		{"both-plain", any(2.0), any(2.0), true},
	} {
		if got := SameRecordedType(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: got %v; want %v", tc.name, got, tc.want)
		}
	}
}
