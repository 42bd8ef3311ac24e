package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Cells of statements ending in an expression run as one Eval: their
// values, output and errors are those of the units run in turn, errors at
// the user's line and column.
func TestMergedCells(t *testing.T) {
	tests := []struct {
		name, cell string
		want       string // output
		err        string // the error's text, "" for none
	}{
		{"counter", "c++; c", "1\n", ""},
		{"three-units", "c++; c += 10; c", "11\n", ""},
		{"lines", "c++\nc *= 3\n  c + 1", "4\n", ""},
		{"assignments", "c = 2; c *= c + 1; -c + 0", "-6\n", ""},
		{"compile-error-in-expression", "c++; c + nope", "", "1:10: undefined: nope"},
		{"compile-error-in-statement", "nope++; c", "", "1:1: undefined: nope"},
		{"type-error", "c++; c + \"s\"", "", "1:6: "},
		// Not merged (they may panic or print), the same as before:
		{"output-first", "fmt.Print(\"o \"); c++; c", "o 1\n", ""},
		{"call-without-result-last", "c++; f()", "f\n", ""},
		{"output-call-last", "c++; fmt.Println(c)", "1\n", ""},
		{"panic-in-statement", "c++\nm[\"k\"] = 1; c", "", "2:1: panic: assignment to entry in nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			in, err := NewInterp(Options{Allow: NewAllowlist(nil), Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			ctx := context.Background()
			setup := "import \"fmt\"\nvar m map[string]int\nvar xs []int\nc := 0\nfunc f() { fmt.Println(\"f\") }"
			if err := in.Eval(ctx, setup, false); err != nil {
				t.Fatal(err)
			}
			err = in.Eval(ctx, tt.cell, true)
			if got := out.String(); got != tt.want {
				t.Errorf("output %q; want %q", got, tt.want)
			}
			var ev *EvalError
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("err = %v", err)
			case tt.err != "" && (!errors.As(err, &ev) || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("err = %v; want %q", err, tt.err)
			}
		})
	}
}

// The merged run is taken: the cell costs one Eval, so yaegi's global
// frame grows as for the expression alone.
func TestMergedCellIsOneEval(t *testing.T) {
	in, err := NewInterp(Options{Allow: NewAllowlist(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	groups := groupUnits("c++; c", mustSplit(t, "c++; c"))
	if !in.mergeable(groups, true) {
		t.Fatal("c++; c is not mergeable")
	}
	for _, cell := range []string{"c := 0; c", "x := 1; x", "c; c++", "c++", "type T int; c", "c++; f()", "c++; c / 2",
		"c++; xs[0]", "m[\"k\"]++; c", "c /= 2; c", "c <<= 1; c", "p := &c; *p", "c++; c == c", "fmt.Print(1); c"} {
		if in.mergeable(groupUnits(cell, mustSplit(t, cell)), true) {
			t.Errorf("%q is mergeable", cell)
		}
	}
}

func mustSplit(t *testing.T, cell string) []unit {
	t.Helper()
	units, err := splitCell(nil, cell)
	if err != nil {
		t.Fatal(err)
	}
	return units
}
