package sandbox

import (
	"bytes"
	"context"
	"testing"
)

func TestMayGiveMethods(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"expression", "x+10000000+100000000", false},
		{"func-literal", "f := func(a int) int { return a }", false},
		{"func-literal-spaced", "f := func (a int) int { return a }", false},
		{"call-of-func-type", "g := funcs(x)", false},
		{"method", "func (t T) String() string { return \"t\" }", true},
		{"method-unspaced", "func(t *T) Error() string { return \"e\" }", true},
		{"struct-type", "type W struct{ time.Duration }", true},
		{"struct-literal", "v := struct{ error }{}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mayGiveMethods(tc.text); got != tc.want {
				t.Errorf("mayGiveMethods(%q) = %v; want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestImportsNonStd(t *testing.T) {
	for text, want := range map[string]bool{
		`import "fmt"`:                    false,
		`import ("strings"; "math/rand")`: false,
		`import "mypkg"`:                  true,
		`import ("fmt"; "example.com/x")`: true,
	} {
		units, err := splitCell(nil, text)
		if err != nil || len(units) != 1 {
			t.Fatalf("splitCell(%q) = %d units, %v; want one", text, len(units), err)
		}
		if got := importsNonStd(&units[0]); got != want {
			t.Errorf("importsNonStd(%q) = %v; want %v", text, got, want)
		}
	}
}

// TestMethodsShownOnceDeclared: plain values first (no wrappers tried),
// then a type with a String method and a struct embedding a native
// Stringer, declared later in the same session, show through String.
func TestMethodsShownOnceDeclared(t *testing.T) {
	var out bytes.Buffer
	in, err := NewInterp(Options{Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	for _, tc := range []struct{ cell, want string }{
		{"x := 2\nx * 21", "42\n"},
		{"type T int\nfunc (T) String() string { return \"tee\" }\nT(1)", "tee\n"},
		{"import \"time\"", ""},
		{"type W struct{ time.Duration }\nW{time.Second}", "1s\n"},
		{"x + 1", "3\n"},
	} {
		out.Reset()
		if err := in.Eval(ctx, tc.cell, true); err != nil {
			t.Fatalf("%q: %v", tc.cell, err)
		}
		if got := out.String(); got != tc.want {
			t.Errorf("%q shows %q; want %q", tc.cell, got, tc.want)
		}
	}
}
