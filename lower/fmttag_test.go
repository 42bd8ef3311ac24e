package lower_test

import "testing"

// A slice or map of the session's types given to a helper declared
// before the types (`func show(x any)`), or stored in an interface by one
// cell and printed by another, prints with its elements' String: the cell
// that converts it tags it (fmttag.go). A type declared again later gets
// its own tag function, so the old one's methods are not used.
func TestFmtTaggedAcrossCells(t *testing.T) {
	out, errs := runSessionCells(t,
		`import "fmt"`,
		`func show(x any) { fmt.Println(x) }`,
		`type Color int`,
		`func (c Color) String() string { return [...]string{"Red", "Green"}[c] }`,
		`var a any = []Color{1, 0}`,
		`show([]Color{0}); show(map[string]Color{"k": 1})`,
		`fmt.Println(a)`,
		`var b any = []Color{1}`,
		`show(b)`,
		"type Color int\nfunc (c Color) String() string { return fmt.Sprint(\"C\", int(c)) }",
		`show([]Color{1}); fmt.Println(a)`,
	)
	for n, e := range errs {
		if e != "" {
			t.Fatalf("cell %d: %s", n, e)
		}
	}
	want := "[Red]\nmap[k:Green]\n[Green Red]\n[Green]\n[C1]\n[Green Red]\n"
	if out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}
