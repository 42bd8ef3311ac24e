package sandbox

import (
	"context"
	"errors"
	"testing"
)

// Errors of the interpreter in a cell the front end rewrote are reported at
// the user's line and column. yaegi places a run-time panic at the entry of
// the function, or of the top-level statement, in which it happens.
func TestLoweredCellErrorsAtUserPositions(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want string
	}{
		{
			// min becomes a helper declared above the cell's code; the loop
			// header is rewritten.
			name: "panic-in-range-int-loop",
			cell: "import \"fmt\"\nxs := []int{min(3, len(fmt.Sprint())), 5}\nfor i := range 3 { fmt.Println(xs[i]) }",
			want: "3:1: panic: reflect: slice index out of range",
		},
		{
			name: "panic-in-function-called-from-loop",
			cell: "n := max(len(\"ab\"), 1)\nfunc check(i int) {\n\tif i == n { panic(\"boom\") }\n}\nfor i := range 3 { check(i) }",
			want: "3:5: panic: boom",
		},
		{
			name: "panic-in-generic-instance",
			cell: "import \"fmt\"\nfunc First[T any](xs []T) T {\n\treturn xs[0]\n}\nfmt.Println(First([]int{}))",
			want: "3:9: panic: reflect: slice index out of range",
		},
		{
			name: "compile-error-in-range-int-loop",
			// yaegi v0.16.1 refuses a call of a method expression of an
			// imported interface held in a variable, which Go (and so the
			// front end's type-check) accepts: its error comes from inside
			// the lowered loop, placed at the user's line and column. (The
			// address of an array pointer's element and a self-referential
			// func type, used here before, are now rewritten by the front
			// end.)
			cell: "import \"fmt\"\nimport \"reflect\"\nn := max(len(\"ab\"), 1)\nfor i := range n {\n\th := reflect.Type.Name\n\tfmt.Println(h(reflect.TypeOf(i)))\n}",
			want: "6:16: too many arguments", // yaegi places it at the first argument
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := newTestInterp(t)
			err := in.Eval(context.Background(), tt.cell, true)
			var ev *EvalError
			if !errors.As(err, &ev) {
				t.Fatalf("got %v; want an *EvalError", err)
			}
			if got := ev.Error(); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// A cell runs from the front end's plan: a statement the lowering runs in
// a function of its own shows nothing (its call has no value), the values
// of the cell's own expressions around it are shown, and a cell the
// splitter cannot end (an open bracket at its end) is a syntax error, not a
// panic of the evaluator.
func TestEvalRunsThePlan(t *testing.T) {
	in, out := newTestInterp(t)
	ctx := context.Background()
	if err := in.Eval(ctx, "n := 0\nfor i := range 3 { n += i }\nn\nfor i := range 2 { n += i }", true); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "3\n" {
		t.Errorf("shown %q; want %q", got, "3\n")
	}
	out.Reset()
	if err := in.Eval(ctx, "for i := range 2 { println(i) }\nn + 1", true); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "0\n1\n5\n" {
		t.Errorf("shown %q; want %q", got, "0\n1\n5\n")
	}
	for _, cell := range []string{"(1", "f(1,", "x := []int{1"} {
		err := in.Eval(ctx, cell, true)
		var ev *EvalError
		if !errors.As(err, &ev) || ev.Line == 0 {
			t.Errorf("Eval(%q) = %v; want a syntax error at a position", cell, err)
		}
	}
}
