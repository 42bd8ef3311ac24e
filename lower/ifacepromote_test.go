package lower_test

import (
	"strings"
	"testing"
)

// A method of the type in a later cell than the type's would lose to the
// promoted one the front end wrote (yaegi keeps the first): refused, in one
// line; declared again with the type, it is the one that runs.
func TestPromotedMethodInLaterCell(t *testing.T) {
	out, errs := runCells(t,
		`import ("fmt"; "sort")`,
		`type rev struct{ sort.Interface }`,
		`func (r rev) Less(i, j int) bool { return r.Interface.Less(j, i) }`,
		"type rev struct{ sort.Interface }\nfunc (r rev) Less(i, j int) bool { return r.Interface.Less(j, i) }",
		"xs := []int{3, 1, 2}\nsort.Sort(rev{sort.IntSlice(xs)})\nfmt.Println(xs)",
	)
	if !strings.Contains(errs[2], "method rev.Less is promoted from an embedded interface") {
		t.Errorf("later method: got error %q; want the refusal", errs[2])
	}
	for _, n := range []int{0, 1, 3, 4} {
		if errs[n] != "" {
			t.Errorf("cell %d: %s", n, errs[n])
		}
	}
	if want := "[3 2 1]\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}
