package sandbox

import (
	"fmt"
	"go/ast"
	"strings"
	"testing"

	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
)

// shape lists a unit's tree: each node's type and its line and column.
func shape(yi *interp.Interpreter, u unit) string {
	var b strings.Builder
	for _, st := range u.stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if n != nil {
				p := yi.FileSet().Position(n.Pos())
				fmt.Fprintf(&b, "%T@%d:%d ", n, p.Line, p.Column)
			}
			return true
		})
	}
	return b.String()
}

// TestStmtCellParsedOnce: a cell of statements is parsed once for all its
// units, into the trees (and positions) a parse per unit gives; the cells
// that need a parse per unit get one.
func TestStmtCellParsedOnce(t *testing.T) {
	tests := []struct {
		cell string
		once bool
	}{
		{"c++; c", true},
		{"a := 1\n  b := 2\n\ta +\n\t  b", true},
		{"s := 0; for i := 0; i < 3; i++ { s += i }; s", true},
		{"x := []int{1}; for y := []int{2}; len(y) < 3; y = append(y, 1) {}; x", false}, // mergeHeaders joins a header
		{"func f() {}\nf()", false},
		{"L: for { break L }; 1", false},
		{"x := 1; x := 2", false}, // a declaration error only a parse of both reports
		{"//line a.go:10\n1; 2", false},
		{"1 +; 2", false},
		{"1", false},
	}
	for _, tt := range tests {
		in, _ := newTestInterp(t)
		us, lerr := lower.Units(tt.cell)
		if lerr != nil {
			t.Fatal(lerr)
		}
		units := make([]unit, len(us))
		for i, lu := range us {
			units[i] = unit{kind: unitStmt, text: tt.cell[lu.Start:lu.End], start: lu.Start, end: lu.End, line: lu.Line, col: lu.Col}
			if lu.Decl {
				units[i].kind = unitDecl
			}
		}
		once := parseStmtCell(in.yi, tt.cell, units)
		if once != tt.once {
			t.Errorf("%q: parsed once %v; want %v", tt.cell, once, tt.once)
		}
		if !once {
			continue
		}
		each, err := splitCell(nil, tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		for i := range each {
			parseUnit(in.yi, &each[i])
		}
		if len(each) != len(units) {
			t.Fatalf("%q: %d units; a parse each gives %d", tt.cell, len(units), len(each))
		}
		for i := range units {
			if got, want := shape(in.yi, units[i]), shape(in.yi, each[i]); got != want {
				t.Errorf("%q unit %d: %s; a parse of its own: %s", tt.cell, i, got, want)
			}
		}
	}
}
