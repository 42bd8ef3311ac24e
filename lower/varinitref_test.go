package lower_test

import "testing"

// A package variable whose value names an earlier cell's variable (yaegi:
// "variable definition loop", the variable 0), with the cell's own
// variables in Go's order around it.
func TestVarNamesEarlierCellVar(t *testing.T) {
	out, errs := runCells(t,
		`import "fmt"`,
		`var l = 3`,
		`var w = 2 * l`,
		`k := 4`,
		"var z = a + 1\nvar a, b = w + k, []int{l}",
		`var _ = func() int { l++; return l }()`,
		`fmt.Println(l, w, z, a, b)`,
	)
	for n, e := range errs {
		if e != "" {
			t.Errorf("cell %d: %s", n, e)
		}
	}
	if want := "4 6 11 10 [3]\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}

// The same within one cell, its statements first: the cell runs in its
// order, each declaration after the statements before it.
func TestVarNamesStatementVarOfCell(t *testing.T) {
	out, errs := runCells(t,
		`import "fmt"`,
		"k := 2\nl := 3\nvar w = 2 * l\nvar z, q = w + k, \"s\"\nl++\nvar y = l\nfmt.Println(l, w, z, q, y)",
	)
	for n, e := range errs {
		if e != "" {
			t.Errorf("cell %d: %s", n, e)
		}
	}
	if want := "4 6 8 s 4\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}

// A cell that keeps its order (a var names a statement's variable) and
// prints %T before a type it declares later (issue 16: "undefined: Sq",
// the type switch naming the session's types in a piece that ran before
// the type's), with the helpers at its top naming that type (%v of
// &Sq{4}) or a method declared after a statement (L's String); w, which
// names a later z, is initialized after it.
func TestKeptOrderTypeNameBeforeLaterType(t *testing.T) {
	out, errs := runCellsOf(t, true, []string{
		`import "fmt"`,
		"type Celsius float64\nc := Celsius(2)\nvar p any = &c\nfmt.Printf(\"%T %v\\n\", p, *(p.(*Celsius)))\n" +
			"type Sq struct{ s float64 }\nvar x, y any = Sq{3}, &Sq{4}\nconst n = 2\ntype A [n]Sq\nfmt.Println(x, y, A{})\nfmt.Printf(\"%T %T %v\\n\", x, y, x)\n" +
			"type L struct{ X int }\nfunc (l L) String() string { return fmt.Sprint(\"L\", l.X) }\nvar v any = L{5}\nvar w = 2 * z\nvar z = 4\nfmt.Printf(\"%T %v %v\\n\", v, v, w)",
		`fmt.Printf("%T %T %v\n", p, x, y)`,
	})
	for n, e := range errs {
		if e != "" {
			t.Errorf("cell %d: %s", n, e)
		}
	}
	if want := "*main.Celsius 2\n{3} &{4} [{0} {0}]\nmain.Sq *main.Sq {3}\nmain.L L5 8\n*main.Celsius main.Sq &{4}\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}
