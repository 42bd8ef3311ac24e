package yaegix

import (
	"errors"
	"fmt"
	"go/ast"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// result is what one cell did: its value or error, and what yaegi wrote to
// Stderr (the panic frames the sandbox reads positions from).
type result struct {
	value, err string
	stderr     []string
}

func outcomeOf(v reflect.Value, err error, w *writes) result {
	var r result
	var p interp.Panic
	switch {
	case errors.As(err, &p):
		r.err = fmt.Sprint("panic: ", PanicValue(p.Value))
	case err != nil:
		r.err = err.Error()
	case v.IsValid() && v.CanInterface():
		r.value = fmt.Sprint(v.Interface())
		if k := v.Kind(); k == reflect.Pointer || k == reflect.Interface || k == reflect.Func {
			r.value = v.Type().String() // a declaration's value: yaegi's node
		}
	}
	r.stderr = w.all()
	return r
}

// TestParsedCellsCompileAsEval: a cell parsed by ParseStmts or ParseDecls
// and compiled with CompileAST gives what Eval of its text gives: the
// value, the error with its position and text (syntax, declaration,
// compile and run-time errors), and the panic frames on Stderr.
func TestParsedCellsCompileAsEval(t *testing.T) {
	setup := []string{"var g = 2", "func boom(n int) int { return 10 / n }", "type T struct{ A int }"}
	tests := []struct {
		name string
		src  string
		then string // a cell run after it, as text in both (what it declared)
	}{
		{"expression", "\ng*21", ""},
		{"statements-on-lines", "\n\n  g++\n  g += 3", "g"},
		{"undefined-name", "\n\n   g + nope", ""},
		{"run-time-panic-in-a-function", "\nboom(0)", ""},
		{"composite-and-field", "\nT{A: g}.A + 1", ""},
		{"declaration-error", "\n{ a := 1; a := 2; _ = a }", ""},
		{"syntax-error", "\ng +* 2", ""},
		{"unused-label-and-block", "\nfor i := 0; i < 2; i++ { g += i }", ""},
		{"func-declaration", "\nfunc twice(n int) int { return 2 * n }", "twice(g)"},
		{"type-and-method", "\ntype U struct{ B int }\nfunc (u U) Get() int { return u.B }", "U{g}.Get()"},
		{"import", "\nimport \"strings\"", "strings.Repeat(\"a\", g)"},
		{"redeclared-in-file", "\nfunc h() {}\nfunc h() {}", ""},
		{"func-literal-called", "\nfunc() { g = 5 }()", "g"},
		{"func-literal-panics", "\nfunc() { panic(\"lit\") }()", "g + 1"},
		{"const-group", "\nconst (\n\tk = iota\n\tl\n)", "l + g"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var textErr, treeErr writes
			text, tree := newInterp(t, nil, &textErr), newInterp(t, nil, &treeErr)
			for _, s := range setup {
				if _, err := text.Eval(s); err != nil {
					t.Fatal(err)
				}
				if _, err := tree.Eval(s); err != nil {
					t.Fatal(err)
				}
			}
			decls := declKeyword(firstWord(tt.src)) && !strings.HasPrefix(tt.src, "\nfunc(")
			evalText := tt.src
			if !decls {
				evalText = StmtText(tt.src)
			}
			v, err := text.Eval(evalText)
			want := outcomeOf(v, err, &textErr)

			var node ast.Node
			var perr error
			if decls {
				f, e := ParseDecls(tree, tt.src)
				node, perr = f, e
				if f == nil && e == nil {
					t.Fatalf("ParseDecls(%q) left it to Eval", tt.src)
				}
			} else {
				b, e := ParseStmts(tree, tt.src)
				node, perr = b, e
				if b == nil && e == nil {
					t.Fatalf("ParseStmts(%q) left it to Eval", tt.src)
				}
			}
			var got result
			if perr != nil {
				got = outcomeOf(reflect.Value{}, perr, &treeErr)
			} else {
				p, err := tree.CompileAST(node)
				if err == nil {
					v, err = tree.Execute(p)
					got = outcomeOf(v, err, &treeErr)
				} else {
					got = outcomeOf(reflect.Value{}, err, &treeErr)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("parsed and compiled: %q; Eval: %q", got, want)
			}
			if tt.then == "" {
				return
			}
			v, err = text.Eval(tt.then)
			want = outcomeOf(v, err, &textErr)
			v, err = tree.Eval(tt.then)
			if got := outcomeOf(v, err, &treeErr); fmt.Sprint(got) != fmt.Sprint(want) || want.err != "" {
				t.Errorf("then %q: %q after the parsed cell; %q after Eval", tt.then, got, want)
			}
		})
	}
}

// TestParseLeavesToEval: what Eval parses otherwise than ParseStmts or
// ParseDecls would is left to it.
func TestParseLeavesToEval(t *testing.T) {
	yi := newInterp(t, nil, nil)
	for _, src := range []string{"var x = 1", "/* c */ type T int", "package main"} {
		if b, err := ParseStmts(yi, src); b != nil || err != nil {
			t.Errorf("ParseStmts(%q) = %v, %v; want nil, nil", src, b, err)
		}
	}
	for _, src := range []string{"x := 1", "//yaegi:tags foo\nfunc f() {}"} {
		if f, err := ParseDecls(yi, src); f != nil || err != nil {
			t.Errorf("ParseDecls(%q) = %v, %v; want nil, nil", src, f, err)
		}
	}
	for src, want := range map[string]string{"  // c\n\tfunc": "func", "/* a */ /* b */var": "var", "x.y": "x", "(1)": "", "ÿa": "ÿa"} {
		if got := firstWord(src); got != want {
			t.Errorf("firstWord(%q) = %q; want %q", src, got, want)
		}
	}
}
