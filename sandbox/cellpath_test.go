package sandbox

import (
	"context"
	"strings"
	"testing"
)

// TestCellsAsParsedTrees: what a session shows and the errors it reports,
// at the user's positions, for cells that go to yaegi as the sandbox's own
// parse (expressions in the tuple and show wrappers, statements, merged
// statements, declarations) and as text (a statement starting with func,
// a declaration error only yaegi's parse reports). Each cell's line is its
// output, then "error: " and the error, if any.
func TestCellsAsParsedTrees(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		want  []string
	}{
		{"shown-with-methods", []string{
			"type S struct{ n int }\nfunc (s S) String() string { return fmt.Sprint(\"S\", s.n) }",
			"S{3}",
			"\n  []S{}[1]",
			"func() S { panic(\"in\") }()",
			"S{1}.n +\n   nope",
			"x := S{2}\nx",
			"{ a := 1; a := 2; _ = a }",
			"type E struct{}\nfunc (E) Error() string { return \"e!\" }\nE{}",
			"var e error = E{}; e",
			"fmt.Println(S{4})",
			"func() int { return 7 }()",
			"x.n, x",
		}, []string{"", "S3", "error: 2:3: panic: reflect: slice index out of range", "error: 1:12: panic: in", "error: 2:4: undefined: nope", "S2", "error: 1:13: no new variables on left side of :=", "e!",
			// As Go shows it: the front end parenthesises the literal
			// (lower/ifacelit.go); yaegi stored it bare and its error show
			// wrapper panicked in reflect.Set.
			"e!",
			"S4", "7", "error: 1:1: expected 1 expression"}},
		{"plain-session", []string{
			"m := map[string]int(nil)",
			"\n\tm[\"a\"] = 1",
			"len(m) +\n  nope",
			"1 + 2",
			"c := 1",
			"c++; c += 2\nc",
			"c++; c + nope",
			"c++; c + \"s\"",
			"func f() {}\nfunc f() {}",
			"import \"strings\"\nstrings.ToUpper(\"q\")",
			"import \"strings\"\nstrings.Repeat(\"z\", c)",
			"for i := 0; i < 2; i++ { c += i }; c",
			"func() { panic(\"lit\") }()",
			"//yaegi:tags foo\nfunc tagged() int { return 1 }\ntagged()",
		}, []string{"", "error: 2:2: panic: assignment to entry in nil map", "error: 2:3: undefined: nope", "3", "", "4", "error: 1:10: undefined: nope", "error: 1:6: invalid operation: mismatched types int and untyped string", "error: 2:6: f redeclared in this block", "\"Q\"", "\"zzzzzz\"", "7", "error: 1:10: panic: lit",
			// A func literal's panic does not come back in later cells (yaegix.StmtText).
			"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out := newTestInterp(t)
			if err := in.Eval(context.Background(), `import "fmt"`, false); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range tt.cells {
				out.Reset()
				err := in.Eval(context.Background(), c, true)
				line := strings.TrimSuffix(out.String(), "\n")
				if err != nil {
					line += "error: " + err.Error()
				}
				got = append(got, line)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d results; want %d", len(got), len(tt.want))
			}
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("cell %q: %q; want %q", tt.cells[i], got[i], tt.want[i])
				}
			}
		})
	}
}
