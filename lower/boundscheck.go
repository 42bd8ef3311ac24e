package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// boundsCheck puts before a statement that indexes or slices a slice,
// string or array the bounds checks Go makes, so that a failing one panics
// with Go's runtime.Error and its text (`index out of range [5] with
// length 3`, `slice bounds out of range [:5] with capacity 3`): yaegi
// v0.16.1 panics with reflect's message, which carries neither index nor
// length (rt.Recovered makes it a runtime.Error without them).
//
// A check is an interpreted comparison, which costs as much as the index
// itself, so inside a loop only a statement that indexes for nothing but
// the panic (`_ = s[i]`) is checked; outside loops every one is (a loop
// around a call costs the call's price first). The check runs before the
// statement, so only statements in which nothing else can panic or have
// an effect first are checked: no calls but conversions, len and cap, no
// receives, dereferences, divisions, shifts, assertions, closures or
// short-circuit operators. A statement that is not checked keeps yaegi's
// behaviour.
func (r *rewriter) boundsCheck(n ast.Node) {
	st, ok := n.(ast.Stmt)
	if !ok {
		return
	}
	switch st := st.(type) {
	case *ast.AssignStmt:
		if r.inLoop() && !blankOnly(st) {
			return
		}
	case *ast.ExprStmt, *ast.IncDecStmt:
		if r.inLoop() {
			return
		}
	default:
		return
	}
	if !r.inStmtList(st) || !r.checkableStmt(st) {
		return
	}
	var checks []string
	if as, ok := st.(*ast.AssignStmt); ok && r.tupled[as] {
		r.tupleBounds(as, &checks) // assignphase.go
	} else {
		r.collectBounds(st, &checks)
	}
	if len(checks) > 0 {
		r.insert(r.off(st.Pos()), strings.Join(checks, "; ")+"; ")
		if r.stmtChecks == nil {
			r.stmtChecks = map[int]bool{}
		}
		r.stmtChecks[r.seq] = true
	}
}

// holdChecks takes out the checks boundsCheck put at offset at, which
// belong before the statement: a rewrite of the expression that starts
// there (showExpr's rebuild of a shown `xs[0]`) would fold them into
// itself ("expected operand, found 'if'"). Give them back with
// r.edits = append(r.edits, held...).
func (r *rewriter) holdChecks(at int) (held []edit) {
	kept := r.edits[:0]
	for _, e := range r.edits {
		if e.start == at && e.end == at && r.stmtChecks[e.seq] {
			held = append(held, e)
			continue
		}
		kept = append(kept, e)
	}
	r.edits = kept
	return held
}

// collectBounds appends the checks of the index and slice expressions of
// n, inner ones (evaluated first) first.
func (r *rewriter) collectBounds(n ast.Node, out *[]string) {
	ast.Inspect(n, func(x ast.Node) bool {
		if x == n {
			return true
		}
		switch x := x.(type) {
		case *ast.IndexExpr:
			r.collectBounds(x.X, out)
			r.collectBounds(x.Index, out)
			if c, ok := r.indexCheck(x); ok {
				*out = append(*out, c)
			}
			return false
		case *ast.SliceExpr:
			for _, e := range []ast.Expr{x.X, x.Low, x.High, x.Max} {
				if e != nil {
					r.collectBounds(e, out)
				}
			}
			if c, ok := r.sliceCheck(x); ok {
				*out = append(*out, c)
			}
			return false
		}
		return true
	})
}

// seqKind is what is indexed: 's' a slice, 'a' an array, 'g' a string;
// 0 anything else (a map, a pointer to an array, a type parameter).
func (r *rewriter) seqKind(x ast.Expr) byte {
	t := r.typeOf(x)
	if t == nil {
		return 0
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return 's'
	case *types.Array:
		return 'a'
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return 'g'
		}
	}
	return 0
}

func (r *rewriter) isConst(e ast.Expr) bool { return r.code.info.Types[e].Value != nil }

// signedText says whether the integer e is of a signed type, for the
// message (an unsigned index is printed as one).
func (r *rewriter) signedText(e ast.Expr) string {
	if b, ok := r.typeOf(e).Underlying().(*types.Basic); ok && b.Info()&types.IsUnsigned != 0 {
		return "false"
	}
	return "true"
}

func (r *rewriter) indexCheck(x *ast.IndexExpr) (string, bool) {
	kind := r.seqKind(x.X)
	if kind == 0 || r.isConst(x.Index) && (kind == 'a' || r.isConst(x.X)) {
		return "", false // checked by the compiler
	}
	if _, ok := r.code.info.Types[x.Index]; !ok || r.code.info.Types[x.Index].IsType() {
		return "", false // an instantiation, not an index
	}
	s, i := r.nodeText(x.X), r.nodeText(x.Index)
	n := "len(" + s + ")"
	return "if uint(" + i + ") >= uint(" + n + ") { panic(" + r.ctx.qualify(rtPath) + ".IndexFail(int64(" + i + "), " +
		r.signedText(x.Index) + ", " + n + ")) }", true
}

func (r *rewriter) sliceCheck(x *ast.SliceExpr) (string, bool) {
	kind := r.seqKind(x.X)
	if kind == 0 {
		return "", false
	}
	s := r.nodeText(x.X)
	bound := "cap(" + s + ")"
	if kind == 'g' {
		bound = "len(" + s + ")"
	}
	rt := r.ctx.qualify(rtPath)
	arg := func(e ast.Expr, def string) (text, signed string) {
		if e == nil {
			return def, "true"
		}
		return r.nodeText(e), r.signedText(e)
	}
	lo, loS := arg(x.Low, "0")
	if x.Slice3 {
		hi, hiS := arg(x.High, "")
		mx, mxS := arg(x.Max, "")
		return "if uint(" + mx + ") > uint(" + bound + ") || uint(" + hi + ") > uint(" + mx + ") || uint(" + lo + ") > uint(" + hi + ") { panic(" +
			rt + ".Slice3Fail(" + quoteKind(kind) + ", int64(" + lo + "), " + loS + ", int64(" + hi + "), " + hiS + ", int64(" + mx + "), " + mxS + ", " + bound + ")) }", true
	}
	if x.High == nil {
		if x.Low == nil || r.isConst(x.Low) && r.isConst(x.X) {
			return "", false
		}
		n := "len(" + s + ")"
		return "if uint(" + lo + ") > uint(" + n + ") { panic(" + rt + ".SliceFail(" + quoteKind(kind) + ", int64(" + lo + "), " + loS + ", int64(" + n + "), true, false, " + n + ")) }", true
	}
	hi, hiS := arg(x.High, "")
	return "if uint(" + hi + ") > uint(" + bound + ") || uint(" + lo + ") > uint(" + hi + ") { panic(" +
		rt + ".SliceFail(" + quoteKind(kind) + ", int64(" + lo + "), " + loS + ", int64(" + hi + "), " + hiS + ", true, " + bound + ")) }", true
}

func quoteKind(k byte) string { return "'" + string(k) + "'" }

// inLoop reports whether the statement being visited is inside a loop of
// its function.
func (r *rewriter) inLoop() bool {
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch r.stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		}
	}
	return false
}

// inStmtList reports whether st is one of a list of statements (a block,
// a case's body, a cell's top level), where a statement can go before it.
func (r *rewriter) inStmtList(st ast.Stmt) bool {
	switch p := r.parent().(type) {
	case nil:
		return len(r.stack) == 1 // a statement of the cell, walked alone
	case *ast.BlockStmt:
		return true
	case *ast.CaseClause:
		return true
	case *ast.CommClause:
		return p.Comm != st
	}
	return false
}

// blankOnly reports `_ = e` (or `_, _ = a, b`): an assignment of nothing.
func blankOnly(st *ast.AssignStmt) bool {
	if st.Tok != token.ASSIGN {
		return false
	}
	for _, l := range st.Lhs {
		if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

// checkableStmt reports a statement in which nothing but an index or a
// slice expression can panic or have an effect.
func (r *rewriter) checkableStmt(st ast.Stmt) bool {
	ok, seen := true, false
	info := r.code.info
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			if info.Types[n.Index].IsType() {
				return true // an instantiation
			}
			k := r.seqKind(n.X)
			if k == 0 {
				if _, isMap := r.typeOf(n.X).Underlying().(*types.Map); !isMap {
					ok = false
				}
			}
			seen = seen || k != 0
		case *ast.SliceExpr:
			if r.seqKind(n.X) == 0 {
				ok = false
			}
			seen = true
		case *ast.CallExpr:
			if tv := info.Types[n.Fun]; tv.IsType() {
				if _, isArray := r.typeOf(n.Fun).Underlying().(*types.Array); isArray {
					ok = false
				}
				if _, isPtr := r.typeOf(n.Fun).Underlying().(*types.Pointer); isPtr {
					ok = false
				}
				return ok
			}
			id, isID := ast.Unparen(n.Fun).(*ast.Ident)
			if !isID {
				ok = false
				break
			}
			if b, isB := info.Uses[id].(*types.Builtin); !isB || b.Name() != "len" && b.Name() != "cap" {
				ok = false
			}
		case *ast.FuncLit, *ast.CompositeLit, *ast.TypeAssertExpr, *ast.StarExpr, *ast.KeyValueExpr:
			ok = false
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LAND, token.LOR, token.SHL, token.SHR, token.QUO, token.REM:
				ok = ok && r.isConst(n.Y) && n.Op != token.LAND && n.Op != token.LOR
			}
		case *ast.SelectorExpr:
			if s := info.Selections[n]; s != nil && s.Indirect() {
				ok = false
			}
		}
		return ok
	})
	return ok && seen
}
