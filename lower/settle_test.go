package lower

import (
	"errors"
	"fmt"
	"go/token"
	"strings"
	"testing"
)

// A committed cell that declares no type and no generic keeps only its
// source: the paths that need its syntax parse it again, at the positions
// of its first parse, and the session's FileSet holds no committed file.
func TestSettledCellsParseAgain(t *testing.T) {
	s := NewSession(Options{})
	run := func(c string) {
		t.Helper()
		if _, err := s.Lower(c); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		s.Commit(c)
	}
	run(`import "strings"`)
	run("a := 1")
	run("b := a + 1 // b mentions a")
	run("func up(x string) string { return strings.ToUpper(x) }")
	run("type T struct{ n int }")
	run("func Map[E any](xs []E, f func(E) E) []E { for i := range xs { xs[i] = f(xs[i]) }; return xs }")
	run("t := T{b}")
	// (TypeOf("b") fails from here on, as before settled cells: the whole
	// model checks b's `a + 1` against the new a.)
	// a redeclared while b mentions it: the whole model decides, from the
	// settled cells parsed again.
	run(`a := "x"`)
	for expr, want := range map[string]string{"a": "string", "t.n": "int", `up("q")`: "string", "Map([]int{1}, func(i int) int { return i })": "[]int"} {
		if got, err := s.TypeOf(expr); err != nil || got != want {
			t.Errorf("TypeOf(%s) = %q, %v; want %q", expr, got, err, want)
		}
	}
	// An error found by the whole model, at the current cell's position.
	_, err := s.Lower("var n int = a")
	var e *Error
	if !errors.As(err, &e) || e.Line != 1 || e.Col != 13 || !strings.Contains(e.Msg, "cannot use a") {
		t.Errorf("got %v; want 1:13: cannot use a ...", err)
	}
	for _, c := range s.cells {
		keeps := c.file != nil
		if want := strings.Contains(string(c.src), "type ") || strings.Contains(string(c.src), "[E any]"); keeps != want {
			t.Errorf("cell %q keeps its syntax: %v; want %v", c.src, keeps, want)
		}
		p := s.syntax(c) // panics if the positions moved
		for _, d := range p.allDecls() {
			for _, n := range declNames(d) {
				if off := p.offset(d.Pos()); off < 0 || !strings.Contains(string(p.src[off:]), strings.TrimPrefix(n, "T.")) {
					t.Errorf("cell %q: %s at offset %d", c.src, n, off)
				}
			}
		}
	}
	files := 0
	s.fset.Iterate(func(*token.File) bool { files++; return true })
	if files > 1 { // the last, failed, cell until the next Lower
		t.Errorf("the session's FileSet holds %d files; want at most 1", files)
	}
}

// Cells committed without a check (the interpreter ran them as typed) are
// checked alone later from their source, or rebuilt all at once.
func TestSettledPendingCells(t *testing.T) {
	for _, n := range []int{3, maxPending + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := NewSession(Options{})
			for i := range n {
				s.Commit(fmt.Sprintf("v%d := %d", i, i))
			}
			s.Commit("w := []string{}")
			if got, err := s.TypeOf(fmt.Sprintf("v%d + len(w)", n-1)); err != nil || got != "int" {
				t.Errorf("got %q, %v; want int", got, err)
			}
			if len(s.inc.pending) != 0 {
				t.Errorf("%d cells still pending", len(s.inc.pending))
			}
		})
	}
}
