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
