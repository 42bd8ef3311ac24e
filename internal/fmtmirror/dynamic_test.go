package fmtmirror_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// Values of a real yaegi interpreter: a value of an interpreted type with
// methods reaches native code inside an []any as yaegi's wrapper, which
// Dynamic unwraps (or hands to conv); an interpreted struct gets Go's field
// names back. Fails if yaegi's wrapper layout moves (isWrapped).
func TestDynamicOfInterpretedValues(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval("type C int\nfunc (c C) String() string { return \"C!\" }\ntype P struct{ x, Y int; V any }"); err != nil {
		t.Fatal(err)
	}
	vals, err := i.Eval("[]any{C(1), P{2, 3, C(4)}, []any{C(5)}, 6}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval("func conv(v any) any { switch v.(type) { case C: return v.(C).String() }; return v }"); err != nil {
		t.Fatal(err)
	}
	conv, err := i.Eval("conv")
	if err != nil {
		t.Fatal(err)
	}
	v := vals.Interface()
	for _, tc := range []struct {
		name, format string
		flags        int
		conv         func(any) any
		want         string
	}{
		{"unwrapped", "%v", 0, nil, "[1 {2 3 4} [5] 6]"},
		{"field-names", "%+v", 0, nil, "[1 {x:2 Y:3 V:4} [5] 6]"},
		{"conv", "%v", 0, conv.Interface().(func(any) any), "[C! {2 3 C!} [C!] 6]"},
		{"bare", "%v", fmtmirror.Bare, conv.Interface().(func(any) any), "[1 {2 3 4} [5] 6]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprintf(tc.format, fmtmirror.Dynamic(v, 0, tc.flags, tc.conv)); got != tc.want {
				t.Errorf("got %s; want %s", got, tc.want)
			}
		})
	}
}

// A value of a compiled type is handed over as it is.
func TestDynamicLeavesCompiledValues(t *testing.T) {
	in := []any{1, "x", fmt.Errorf("e")}
	if got := fmtmirror.Dynamic(in, 0, 0, nil); fmt.Sprint(got) != "[1 x e]" {
		t.Errorf("got %v", got)
	}
}

// Under a Numeric verb only conv's Formatters stand for a value: a String
// conv made is not called (the walk unwraps it instead), a Format is.
func TestDynamicNumericKeepsFormatters(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{"example.com/fm/fm": {"NewFormatter": reflect.ValueOf(fmtmirror.NewFormatter)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval("import (\"fmt\"; \"example.com/fm\")\ntype C int\nfunc (c C) String() string { return \"C!\" }\ntype M int\nfunc (m M) Format(f fmt.State, verb rune) { fmt.Fprintf(f, \"M%c\", verb) }"); err != nil {
		t.Fatal(err)
	}
	vals, err := i.Eval("[]any{C(1), M(2)}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval("func conv(v any) any { switch v.(type) { case C: return v.(C).String(); case M: return fm.NewFormatter(v.(M).Format) }; return v }"); err != nil {
		t.Fatal(err)
	}
	conv, err := i.Eval("conv")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%d", fmtmirror.Dynamic(vals.Interface(), 0, fmtmirror.Numeric, conv.Interface().(func(any) any)))
	if got != "[1 Md]" {
		t.Errorf("got %s; want [1 Md]", got)
	}
}
