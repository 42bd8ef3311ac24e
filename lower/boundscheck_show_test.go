package lower_test

import "testing"

// A shown expression that indexes, in a session that declared a method
// (so the prompt rebuilds shown values): the bounds check goes before the
// statement, not into the rebuilt value ("the Go front end produced code
// that does not parse: expected operand, found 'if'").
func TestShownIndexKeepsItsBoundsCheckOutside(t *testing.T) {
	_, errs := runCellsOf(t, true, []string{
		`type C int`,
		`func (c C) String() string { return "c" }`,
		`type P struct{ x, y int }`,
		`xs := []any{P{1, 2}, &P{3, 4}}`,
		`xs[0]`,
		`xs[1]`,
	})
	for n, e := range errs {
		if e != "" {
			t.Errorf("cell %d: %s", n+1, e)
		}
	}
}
