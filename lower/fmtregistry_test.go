package lower_test

import (
	"testing"
)

// runSessionCells is runCells with the sandbox's one rule for imports: a
// package imported again under the same name is not imported twice
// (sandbox.dropReimports), as the runtime import the lowering adds to
// each cell that needs it.
func runSessionCells(t *testing.T, cells ...string) (string, []string) {
	t.Helper()
	return runCellsOf(t, true, cells)
}

// A print helper declared in a cell before the types it prints, each
// declaration in a cell of its own: the types' String and Error reach it
// through the session's registry (fmtregistry.go), for its ...any, its
// any parameter, and an []any it gets.
func TestFmtHelperDeclaredBeforeItsTypes(t *testing.T) {
	out, errs := runSessionCells(t,
		`import "fmt"`,
		`func logf(format string, args ...any) { fmt.Printf("[log] "+format+"\n", args...) }`,
		`func show(x any) { fmt.Println(x) }`,
		`type Color int`,
		`func (c Color) String() string { return [...]string{"Red", "Green"}[c] }`,
		`type E struct{ msg string }; func (e E) Error() string { return "E:" + e.msg }`,
		`type T struct{ N int }; func (t *T) String() string { return fmt.Sprint("T", t.N) }`,
		`logf("%v %d %s|%5v|", Color(1), Color(1), E{"x"}, Color(0))`,
		`show(Color(1)); show([]any{E{"y"}, &T{2}, T{3}})`,
	)
	for n, e := range errs {
		if e != "" {
			t.Fatalf("cell %d: %s", n, e)
		}
	}
	want := "[log] Green 1 E:x|  Red|\nGreen\n[E:y T2 {3}]\n"
	if out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}

// An instance of a generic type of the session with a String method,
// named only by an earlier cell, printed behind an interface (through the
// registry: the cell that named it registered it).
func TestFmtInstanceNamedByEarlierCell(t *testing.T) {
	out, errs := runSessionCells(t,
		`import "fmt"`,
		"type W[T any] struct{ V T }\nfunc (w W[T]) String() string { return fmt.Sprint(\"W<\", w.V, \">\") }",
		`func wrap(v any) []any { return []any{v} }`,
		`var w = wrap(W[string]{"s"})`,
		`var ws = []any{W[int]{1}}`,
		`fmt.Println(w, ws)`,
	)
	for n, e := range errs {
		if e != "" {
			t.Fatalf("cell %d: %s", n, e)
		}
	}
	if want := "[W<s>] [W<1>]\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}
