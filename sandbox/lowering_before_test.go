package sandbox

import (
	"context"
	"testing"
)

// A cell the front end finds a type error in still runs its units before
// the error's line, as a cell that bypasses the front end does: whether a
// cell has a trigger word must not change what runs.
func TestTypeErrorRunsUnitsBefore(t *testing.T) {
	tests := []struct {
		name, cell, want, err string
	}{
		{
			name: "var-after-print",
			cell: "import \"fmt\"\nfmt.Println(\"start\")\nvar x int = \"no\"",
			want: "start\n",
			err:  `3:13: cannot use "no" (untyped string constant) as int value in variable declaration`,
		},
		{
			name: "loop-before-error",
			cell: "import \"fmt\"\nfor i := range 2 { fmt.Print(i) }\ny := undefinedName",
			want: "01",
			err:  "3:6: undefined: undefinedName",
		},
		{
			name: "error-in-first-unit",
			cell: "var x int = \"no\"\nprintln(\"never\")",
			err:  `1:13: cannot use "no" (untyped string constant) as int value in variable declaration`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out := newTestInterp(t)
			err := in.Eval(context.Background(), tt.cell, false)
			if err == nil || err.Error() != tt.err {
				t.Errorf("error: got %v; want %q", err, tt.err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("output: got %q; want %q", got, tt.want)
			}
		})
	}
}
