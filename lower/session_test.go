package lower

import (
	"errors"
	"testing"
)

func TestLowerReportsTypeErrors(t *testing.T) {
	tests := []struct {
		name    string
		context []string
		cell    string
		want    string // "" for no error
	}{
		{name: "ok-expression", cell: "1 + 2"},
		{name: "unused-import-is-fine", cell: `import "fmt"`},
		{name: "undefined", cell: "x := 1\ny := z", want: "2:6: undefined: z"},
		{name: "mismatch", cell: `var s string = 3`, want: "1:16: cannot use 3 (untyped int constant) as string value in variable declaration"},
		{name: "context-var", context: []string{"x := 41"}, cell: "x + 1"},
		{name: "context-import", context: []string{`import "strings"`}, cell: `strings.ToUpper("a")`},
		{name: "context-redeclare", context: []string{"x := 41", `x := "s"`}, cell: `x + "t"`},
		{name: "decl-sees-stmt-var", cell: "n := 3\nfunc f() int { return n }\nf()"},
		{name: "forward-func", cell: "f()\nfunc f() {}"},
		{name: "syntax", cell: "x := (1", want: "1:8: expected ')', found newline"},
		{name: "type-of-later-cell", context: []string{"type P struct{ x int }", "func (p P) get() int { return p.x }"}, cell: "P{1}.get()"},
		{name: "partial-redefine", cell: "a, err := 1, error(nil)\nb, err := 2, error(nil)\n_, _ = a, b"},
		{name: "imports-on-one-line", cell: "import \"os\"; import \"fmt\"\nb, _ := os.ReadFile(\"x\")\nfmt.Println(b[0])"},
		{name: "decl-and-stmt-on-one-line", cell: "func f() int { return 1 }; x := f(); import \"fmt\"; fmt.Println(x, min(x, 2))"},
		{name: "error-after-imports-on-one-line", cell: "import \"os\"; import \"fmt\"; fmt.Println(os.Args + 1)", want: "1:40: invalid operation: os.Args + 1 (mismatched types []string and untyped int)"},
		{name: "unused-local-in-func", cell: "func f() { x := 1 }", want: "1:12: declared and not used: x"},
		// The type-check sees only the cells a cell can depend on (depends.go):
		// what it needs must still be there, and what was replaced must not.
		{name: "dependency-chain", context: []string{"type B struct{ n int }", "type A struct{ b B }", "x := 1", "func mk() A { return A{B{x}} }"}, cell: "mk().b.n + 1"},
		{name: "method-of-a-later-cell-implements", context: []string{"type I interface{ M() int }", "type T int", "y := 2", "func (T) M() int { return 1 }"}, cell: "var i I = T(3)\n_ = i"},
		{name: "missing-method-reported", context: []string{"type I interface{ M() int; N() }", "type T int", "func (T) M() int { return 1 }"}, cell: "var i I = T(3)\n_ = i", want: "1:11: cannot use T(3) (constant 3 of int type T) as I value in variable declaration: T does not implement I (missing method N)"},
		{name: "redefined-type-replaces", context: []string{"type P struct{ a int }", "func useP(p P) int { return p.a }", "type P struct{ b string }"}, cell: "P{b: \"s\"}.b"},
		{name: "redefined-type-old-field-gone", context: []string{"type P struct{ a int }", "z := 0", "type P struct{ b string }"}, cell: "P{a: 1}", want: "1:3: unknown field a in struct literal of type P"},
		{name: "embedded-through-var", context: []string{"type In struct{ v int }", "type Out struct{ In }", "o := Out{In{5}}"}, cell: "o.v"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSession(Options{})
			for _, c := range tt.context {
				if _, err := s.Lower(c); err != nil {
					t.Fatalf("context %q: %v", c, err)
				}
				s.Commit(c)
			}
			_, err := s.Lower(tt.cell)
			got := ""
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("got %T; want *Error", err)
				}
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}
