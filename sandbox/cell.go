package sandbox

import (
	"go/ast"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
)

// unitKind says how a top-level unit of a cell is evaluated.
type unitKind int

const (
	unitDecl unitKind = iota // import, func, method, type, var, const
	unitStmt                 // any statement, run like the body of main
)

// unit is one top-level piece of a cell, with where it starts in the cell so
// that the interpreter's positions can be the user's.
type unit struct {
	imp *importParse // an import unit's specs, once parsed (importSpecs)

	kind    unitKind
	imports bool   // a decl unit that is an import
	text    string // the unit's source
	start   int    // byte offsets of text in the cell
	end     int
	line    int  // 1-based line of the unit's first byte in the cell
	col     int  // 1-based column of the unit's first byte
	isExpr  bool // a statement that is a lone expression: its value is shown
	noValue bool // a call the front end added: nothing to show (lower.Plan)

	// parsed says the unit parsed where the interpreter puts it
	// (parseUnit), with its declarations or statements: a cell is parsed
	// once for the syntax check, the expression test, the names learnt
	// and yaegi's compile.
	parsed bool
	decls  []ast.Decl // of a unitDecl
	stmts  []ast.Stmt // of a unitStmt
	// node is that parse as yaegi's Eval would have made it (the body of
	// its func main, or its file: yaegix.ParseStmts, ParseDecls), which
	// yaegi compiles instead of parsing the text again; nil: yaegi gets
	// the text (a unit yaegi's own parse rejects, where yaegi's error is
	// the one to show; a run of several declarations).
	node ast.Node
}

// splitCell cuts a cell into its top-level units with the front end's
// splitter (lower.Units, the one splitter of a cell). yaegi v0.16.1 parses
// one Eval that starts with a declaration as a file and then rejects
// statements, so imports, declarations and statements typed together are
// run one unit at a time. A scanner error is returned as the user's error.
// The units are parsed for yi (parseUnit); nil: for no interpreter.
func splitCell(yi *interp.Interpreter, src string) ([]unit, error) {
	us, lerr := lower.Units(src)
	if lerr != nil {
		return nil, errorAt(lerr.Line, lerr.Col, lerr.Msg)
	}
	return cutUnits(yi, src, us, nil), nil
}

// planUnits are the units of the code of the front end's plan, as it cut
// them: the lowered code is not scanned again.
func planUnits(yi *interp.Interpreter, p *lower.Plan) []unit {
	return cutUnits(yi, p.Src, p.Units, p.NoValue)
}

// cutUnits makes the units of src from the splitter's, each parsed where
// the interpreter puts it. A unit of noValue (a call the lowering added)
// is a statement with no value to show, run as it is.
func cutUnits(yi *interp.Interpreter, src string, us []lower.Unit, noValue []bool) []unit {
	units := make([]unit, len(us))
	for i, lu := range us {
		units[i] = unit{text: src[lu.Start:lu.End], start: lu.Start, end: lu.End, line: lu.Line, col: lu.Col, imports: lu.Import}
		if lu.Decl {
			units[i].kind = unitDecl
		} else {
			units[i].kind = unitStmt
		}
		units[i].noValue = i < len(noValue) && noValue[i]
	}
	if !parseStmtCell(yi, src, units) {
		units = mergeHeaders(yi, src, units)
	}
	for i := range units {
		u := &units[i]
		_, u.isExpr = u.onlyStmt().(*ast.ExprStmt)
		u.isExpr = u.isExpr && !u.noValue
	}
	return units
}

// parseStmtCell parses a cell of statements only (several units) at once
// for yi and gives each unit its statements: the trees a parse per unit
// makes, positions included (the user's, one line down), for one parse.
// false: the units need a parse each (no interpreter; a declaration among
// them; a statement across units, which mergeHeaders joins; a label, whose
// scope one parse would widen to the other units; a //line directive,
// which would move the later units' positions; an error, which is
// reported unit by unit).
func parseStmtCell(yi *interp.Interpreter, src string, units []unit) bool {
	if yi == nil || len(units) < 2 {
		return false
	}
	for _, u := range units {
		if u.kind != unitStmt {
			return false
		}
	}
	for _, w := range []string{"goto", "break", "continue", "//line", "/*line"} {
		if strings.Contains(src, w) {
			return false
		}
	}
	body, err := yaegix.ParseStmts(yi, "\n"+src+"\n")
	if err != nil || body == nil {
		return false
	}
	per := make([][]ast.Stmt, len(units))
	j := 0
	for _, st := range body.List {
		// Offsets in the cell: the parse's text has a newline first.
		from, to := yaegix.Offset(yi, st.Pos())-1, yaegix.Offset(yi, st.End())-1
		for j < len(units) && from >= units[j].end {
			j++
		}
		if j == len(units) || from < units[j].start || to > units[j].end {
			return false
		}
		per[j] = append(per[j], st)
	}
	for i := range units {
		if len(per[i]) == 0 {
			return false
		}
	}
	for i := range units {
		units[i].parsed, units[i].stmts = true, per[i]
		units[i].node = &ast.BlockStmt{Lbrace: body.Lbrace, List: per[i], Rbrace: body.Rbrace}
	}
	return true
}

// onlyStmt is the statement of a parsed statement unit of one; else nil.
func (u *unit) onlyStmt() ast.Stmt {
	if u.kind == unitStmt && u.parsed && len(u.stmts) == 1 {
		return u.stmts[0]
	}
	return nil
}

// mergeHeaders joins units cut at the semicolons of a statement header
// that the splitter's header rule misses (a composite literal in it: "for
// x := []int{1}; len(x) < 3; ..."): a unit that does not parse on its own
// is joined with the ones after it until the join parses.
// A unit that never does is left as it was, for checkSyntax to report.
func mergeHeaders(yi *interp.Interpreter, src string, units []unit) []unit {
	var out []unit
	for i := 0; i < len(units); i++ {
		u := units[i]
		if parseUnit(yi, &u) == nil {
			out = append(out, u)
			continue
		}
		merged := false
		for j := i + 1; j < len(units); j++ {
			m := u
			m.end = units[j].end
			m.text = src[m.start:m.end]
			if parseUnit(yi, &m) == nil {
				out = append(out, m)
				i = j
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, u)
		}
	}
	return out
}

// forgetTrees drops the files of the parses of a cell's units (units, as
// the cell was cut) from yaegi's FileSet (yaegix.ForgetTree) once the cell
// ended, where yaegi keeps nothing of them: when they did not run (unused:
// the front end's code ran instead, or the cell failed before yaegi), or
// when the cell declares nothing and has no function literal, go or defer
// statement (whose trees run, and may panic, after the cell). Not while an
// interrupted cell still runs.
func (in *Interp) forgetTrees(cell string, units []unit, unused bool) {
	if in.stuck.Load() {
		return
	}
	if !unused && (!declaresNothing(units) || strings.Contains(cell, "func") || strings.Contains(cell, "go") || strings.Contains(cell, "defer")) {
		return
	}
	for _, u := range units {
		if u.node != nil {
			yaegix.ForgetTree(in.yi, u.node)
		}
	}
}
