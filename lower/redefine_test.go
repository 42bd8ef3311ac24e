package lower_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/replhost/replhost/lower"
)

// runCells runs cells one after the other as a REPL session does (lower,
// then evaluate, then commit) and returns stdout and each cell's error.
func runCells(t *testing.T, cells ...string) (string, []string) {
	t.Helper()
	return runCellsOf(t, false, cells)
}

// runCellsOf is runCells; with dropReimports, an import piece already
// evaluated is not evaluated again (the sandbox's sandbox.dropReimports).
func runCellsOf(t *testing.T, dropReimports bool, cells []string) (string, []string) {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	for _, e := range []interp.Exports{stdlib.Symbols, lower.Runtime, lower.Symbols} {
		if err := i.Use(e); err != nil {
			t.Fatal(err)
		}
	}
	s := lower.NewSession(lower.Options{})
	imported := map[string]bool{}
	errs := make([]string, len(cells))
	for n, c := range cells {
		src, err := s.Lower(c)
		if err != nil {
			errs[n] = err.Error()
			continue
		}
		for _, piece := range lower.Split(src) {
			if p := strings.TrimSpace(piece); dropReimports && strings.HasPrefix(p, "import ") && !strings.Contains(p, "\n") {
				if imported[p] {
					continue
				}
				imported[p] = true
			}
			if _, err := i.Eval(piece); err != nil {
				errs[n] = err.Error()
				break
			}
		}
		if errs[n] == "" {
			s.Commit(c)
		}
	}
	return out.String(), errs
}

func TestRedefinedTypeReplacesOld(t *testing.T) {
	out, errs := runCells(t,
		`import "fmt"`,
		`type P struct{ X int }`,
		`func (p P) Show() string { return fmt.Sprint("old ", p.X) }`,
		`fmt.Println(P{1}.Show())`,
		`type P struct{ X, Y int }`,
		`fmt.Println(P{1, 2})`,
		`func (p P) Show() string { return fmt.Sprint("new ", p.X, p.Y) }`,
		`fmt.Println(P{3, 4}.Show())`,
		`var q P`,
		`q.Y = 5`,
		`fmt.Printf("%T %v\n", q, []P{q})`,
	)
	for n, e := range errs {
		if e != "" {
			t.Errorf("cell %d: %s", n, e)
		}
	}
	if want := "old 1\n{1 2}\nnew 3 4\nmain.P [{0 5}]\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}

func TestRedeclaredMethodRefused(t *testing.T) {
	out, errs := runCells(t,
		`import "fmt"`,
		`type P int`,
		`func (P) Name() string { return "first" }`,
		`func (P) Name() string { return "second" }`,
		`fmt.Println(P(0).Name())`,
		`type P int`,
		`func (P) Name() string { return "third" }`,
		`fmt.Println(P(0).Name())`,
	)
	if !strings.Contains(errs[3], "method P.Name is already declared") {
		t.Errorf("redeclared method: got error %q; want the refusal", errs[3])
	}
	for _, n := range []int{0, 1, 2, 4, 5, 6, 7} {
		if errs[n] != "" {
			t.Errorf("cell %d: %s", n, errs[n])
		}
	}
	if want := "first\nthird\n"; out != want {
		t.Errorf("got %q; want %q", out, want)
	}
}
