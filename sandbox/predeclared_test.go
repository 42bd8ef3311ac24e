package sandbox

import (
	"context"
	"testing"
)

// A package-level name of a predeclared one is renamed by the front end
// (lower/universename.go) when its cell is lowered; later cells that use
// it have no word that would make the sandbox lower them, and must be
// lowered all the same. One declared by a cell that was not lowered keeps
// its name for the interpreter, and so for later cells.
func TestPredeclaredNamesAcrossCells(t *testing.T) {
	in, out := newTestInterp(t)
	cells := []string{
		"import \"fmt\"",
		"len := 3",
		"var cap = []int{7}",
		"fmt.Println(cap, len)",
		"x := cap[0] + len",
		"fmt.Println(x)",
	}
	for _, c := range cells {
		if err := in.Eval(context.Background(), c, false); err != nil {
			t.Fatalf("cell %q: %v", c, err)
		}
	}
	if got, want := out.String(), "[7] 3\n10\n"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
