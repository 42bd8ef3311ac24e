package udf

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
)

func TestExportsRegisters(t *testing.T) {
	reg := &Registry{}
	i := newInterp(t, reg, nil)
	eval(t, i,
		`import "udf"`, `import "strings"`,
		`udf.Register("upper", strings.ToUpper)`,
		`udf.Register("clean", func(s string) string { return strings.TrimSpace(s) + "!" })`,
		`func add(a, b int) int { return a + b }`,
		`udf.Register("add", add)`,
		`type P struct { Name string; N int }`,
		`udf.Register("point", func(name string, n int) P { return P{name, n} })`,
		`udf.Register("check", func(s string) (string, error) { return s, nil })`,
	)
	want := []Entry{
		{"add", "func(int, int) int"},
		{"check", "func(string) (string, error)"},
		{"clean", "func(string) string"},
		{"point", "func(string, int) struct { Name string; N int }"},
		{"upper", "func(string) string"},
	}
	if got := reg.List(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	// An interpreted function arrives as a plain Go func: the fast path applies.
	if f := lookup(t, reg, "clean"); f.str == nil {
		t.Errorf("clean: got no func(string) string fast path")
	}
	if f := lookup(t, reg, "check"); f.strErr == nil {
		t.Errorf("check: got no func(string) (string, error) fast path")
	}
}

func TestExportsRejectsAsCellError(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"not-a-function", `udf.Register("x", 42)`, `udf: "x": got int, want a function`},
		{"empty-name", `udf.Register("", strings.ToUpper)`, `udf: empty name`},
		{"variadic", `udf.Register("x", func(a ...string) string { return "" })`,
			`udf: "x": func(...string) string is variadic; want a fixed number of arguments`},
		{"channel-argument", `udf.Register("x", func(c chan int) int { return 0 })`,
			`udf: "x": argument 1 is a channel (chan int); records carry only JSON values`},
		{"too-many-results", `udf.Register("x", func() (int, int, error) { return 0, 0, nil })`,
			`udf: "x": func() (int, int, error) has 3 results; want at most a value and an error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &Registry{}
			i := newInterp(t, reg, nil)
			eval(t, i, `import "udf"`, `import "strings"`)
			_, err := i.Eval(tt.src)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v; want %v", err, tt.want)
			}
			if _, ok := err.(interp.Panic); !ok {
				t.Errorf("got %T; want interp.Panic", err)
			}
			if got := reg.List(); len(got) != 0 {
				t.Errorf("got %v; want nothing registered", got)
			}
		})
	}
}

func TestExportsReplaceNotice(t *testing.T) {
	reg := &Registry{}
	var notice bytes.Buffer
	i := newInterp(t, reg, &notice)
	eval(t, i, `import "udf"`, `import "strings"`, `udf.Register("clean", strings.ToUpper)`)
	if notice.Len() != 0 {
		t.Errorf("first registration: got notice %q; want none", notice.String())
	}
	eval(t, i, `udf.Register("clean", strings.ToLower)`)
	if got, want := notice.String(), "udf: \"clean\" replaced\n"; got != want {
		t.Errorf("got notice %q; want %q", got, want)
	}
	if out, _, _ := runString(t, lookup(t, reg, "clean"), "AbC\n", 1); out != "abc\n" {
		t.Errorf("got %q; want the newer function's %q", out, "abc\n")
	}
}

func TestTwoRegistriesSameName(t *testing.T) {
	regA, regB := &Registry{}, &Registry{}
	a, b := newInterp(t, regA, nil), newInterp(t, regB, nil)
	eval(t, a, `import "udf"`, `import "strings"`,
		`udf.Register("clean", func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) })`)
	eval(t, b, `import "udf"`, `import "strings"`,
		`udf.Register("clean", func(s string) string { return strings.ReplaceAll(s, " ", "_") })`)
	const input = " a b \nc d\n"
	for _, tt := range []struct {
		name string
		reg  *Registry
		want string
	}{
		{"session-a", regA, "A B\nC D\n"},
		{"session-b", regB, "_a_b_\nc_d\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _, _ := runString(t, lookup(t, tt.reg, "clean"), input, 2); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}
