package sandbox

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
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

// TestTrivialCellsLeaveNoFiles: yaegi's FileSet keeps the files of cells
// that declared something (a panic in a function prints its position
// later), and not those of cells that left nothing behind, nor of parses
// that failed.
func TestTrivialCellsLeaveNoFiles(t *testing.T) {
	in, _ := newTestInterp(t)
	files := func() int {
		n := 0
		in.yi.FileSet().Iterate(func(*token.File) bool { n++; return true })
		return n
	}
	for _, c := range []string{"n := 0", "func boom() { panic(\"b\") }", `import "strings"`} {
		if err := in.Eval(context.Background(), c, false); err != nil {
			t.Fatal(err)
		}
	}
	before := files()
	for range 50 {
		for _, c := range []string{"n++; n", "n + 1", "strings.ToUpper(\"a\")", "x := 1 +; 2", "n + nope"} {
			in.Eval(context.Background(), c, true)
		}
	}
	if after := files(); after > before+5 {
		t.Errorf("FileSet: %d files after 250 cells that declared nothing; %d before", after, before)
	}
	// The panic's place is in boom's cell.
	err := in.Eval(context.Background(), "\n  boom()", true)
	if err == nil || err.Error() != "1:15: panic: b" {
		t.Errorf("a panic in a function of an earlier cell: %v; want 1:15: panic: b", err)
	}
	if err := in.Eval(context.Background(), "func() { n = 7 }(); n", true); err != nil {
		t.Fatal(err)
	}
}
