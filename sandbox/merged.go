package sandbox

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
	"strings"
)

// A cell of statements ending in one shown expression (`c++; c`, `i++;
// s = s + x; s`) runs as one Eval, not one per unit: each Eval costs yaegi
// a parse, a compile and a run of its own, and the hops to the runner
// goroutine. Only when the units cannot panic: yaegi places a panic in an
// Eval of several statements at the first of them, where one Eval per
// unit places it at its unit. So: assignments and ++/-- of variables, then
// an expression, of names, literals and the operators that cannot panic
// (no call, index, division, shift or ==, which panics for incomparable
// interface values). They declare nothing and print nothing; the session
// must have no types with methods (the show wrappers of showmethods.go are
// tried unit by unit). A compile error has no effects: the cell then runs
// unit by unit, which reports it at the user's place.

// mergeable reports whether groups may run as one Eval.
func (in *Interp) mergeable(groups []unit, show bool) bool {
	n := len(groups)
	if !show || in.methods || n < 2 || !groups[n-1].isExpr || !declaresNothing(groups) {
		return false
	}
	for _, u := range groups[:n-1] {
		if u.isExpr || len(u.stmts) != 1 || !cannotPanicStmt(u.stmts[0]) {
			return false
		}
	}
	return cannotPanic(groups[n-1].onlyStmt().(*ast.ExprStmt).X)
}

// cannotPanicStmt: x++, x--, x = e and x op= e of variables x, with e as
// cannotPanic.
func cannotPanicStmt(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.IncDecStmt:
		_, ok := st.X.(*ast.Ident)
		return ok
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE || st.Tok == token.QUO_ASSIGN || st.Tok == token.REM_ASSIGN ||
			st.Tok == token.SHL_ASSIGN || st.Tok == token.SHR_ASSIGN || len(st.Lhs) != len(st.Rhs) {
			return false
		}
		for i := range st.Lhs {
			if _, ok := st.Lhs[i].(*ast.Ident); !ok || !cannotPanic(st.Rhs[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// cannotPanic: names, literals, and the unary and binary operators that
// cannot panic whatever the operands' types.
func cannotPanic(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return cannotPanic(e.X)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.NOT, token.XOR:
			return cannotPanic(e.X)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR, token.AND_NOT,
			token.LAND, token.LOR, token.LSS, token.GTR, token.LEQ, token.GEQ:
			return cannotPanic(e.X) && cannotPanic(e.Y)
		}
	}
	return false
}

// evalMerged runs groups as one Eval and shows the last one's value. ran
// is false when it did not compile (nothing ran).
func (in *Interp) evalMerged(ctx context.Context, groups []unit) (ran bool, err error) {
	last := groups[len(groups)-1]
	code, where := source{node: mergedBlock(groups)}, func(err error) error { return shiftError(err, 1) }
	if code.node == nil {
		text, exprLine := mergedSource(groups)
		code, where = source{text: text}, func(err error) error { return mergedError(err, exprLine) }
	}
	v, err := in.run(ctx, code)
	var ev *EvalError
	if errors.As(err, &ev) && ev.compile {
		return false, nil
	}
	if err != nil {
		return true, where(err)
	}
	in.show(v, true, outputCall(last))
	return true, nil
}

// mergedBlock is the units' own parses for yaegi (each unit's positions
// the user's, one line down) as one block, the last unit's expression in
// __rh.Tuple; nil (an ast.Node) unless every unit has one.
func mergedBlock(groups []unit) ast.Node {
	var list []ast.Stmt
	for _, u := range groups[:len(groups)-1] {
		if u.node == nil {
			return nil
		}
		list = append(list, u.stmts...)
	}
	last := groups[len(groups)-1]
	x := last.expr()
	if x == nil {
		return nil
	}
	body := last.node.(*ast.BlockStmt)
	first := groups[0].node.(*ast.BlockStmt)
	list = append(list, &ast.ExprStmt{X: tupleCall(body.Lbrace, x.End(), x)})
	return &ast.BlockStmt{Lbrace: first.Lbrace, List: list, Rbrace: body.Rbrace}
}

// mergedSource lays the units out at their lines and columns, one line
// down (yaegi's func main wrapper takes the first), the last inside
// __rh.Tuple on the line after its own. exprLine is the source line where
// the last unit begins.
func mergedSource(groups []unit) (src string, exprLine int) {
	var b strings.Builder
	b.WriteString("\n")
	line, col := 1, 1 // where b ends, in the cell's positions
	advance := func(u unit) {
		if u.line > line {
			b.WriteString(strings.Repeat("\n", u.line-line))
			line, col = u.line, 1
		}
		if u.col > col {
			b.WriteString(strings.Repeat(" ", u.col-col))
		}
		b.WriteString(u.text)
		if nl := strings.Count(u.text, "\n"); nl > 0 {
			line += nl
			col = len(u.text) - strings.LastIndexByte(u.text, '\n')
		} else {
			col = u.col + len(u.text)
		}
	}
	for _, u := range groups[:len(groups)-1] {
		advance(u)
		b.WriteString(";")
		col++
	}
	last := groups[len(groups)-1]
	b.WriteString(tuplePrefix)
	exprLine = last.line + 2
	b.WriteString(strings.Repeat("\n", max(last.line-line, 0)))
	b.WriteString(padTo(unit{line: 1, col: last.col}))
	b.WriteString(last.text + ")\n")
	return b.String(), exprLine
}

// mergedError moves an error's position in mergedSource's code to the
// user's cell.
func mergedError(err error, exprLine int) error {
	var ev *EvalError
	if !errors.As(err, &ev) || ev.Line == 0 {
		return err
	}
	shift := 1
	if ev.Line >= exprLine {
		shift = 2
	}
	return shiftError(err, shift)
}
