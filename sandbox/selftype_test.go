package sandbox

import (
	"context"
	"testing"
)

// A self-referential type is cut by the front end (lower/selffunc.go,
// selfptr.go, selfslice.go); a later cell that uses it has no word that
// would make the sandbox lower it, and must be lowered all the same.
func TestSelfTypeUsedInLaterCells(t *testing.T) {
	in, out := newTestInterp(t)
	cells := []string{
		"import \"fmt\"",
		"type F func(string) F",
		"var log string",
		"func a(s string) F {\n\tlog += s\n\treturn F(a)\n}",
		"_ = a(\"1\")(\"2\")(\"3\")",
		"fmt.Println(log)",
		"type P *P",
		"var p P",
		"p = new(P)",
		"fmt.Println(*p == nil)",
	}
	for _, c := range cells {
		if err := in.Eval(context.Background(), c, false); err != nil {
			t.Fatalf("cell %q: %v", c, err)
		}
	}
	if got, want := out.String(), "123\ntrue\n"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
