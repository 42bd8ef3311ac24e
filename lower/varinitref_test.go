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
