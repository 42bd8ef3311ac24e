package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// topLevel reports whether the node being visited is outside every
// function: in a cell's statements or a package-level var declaration.
func (r *rewriter) topLevel() bool { return r.subst == nil && len(r.fns) == 1 && !r.wrapped }

// needsFuncScope reports a compound top-level statement that defines two
// variables from one value (v, ok := m[k]; a, b := f()) inside its blocks:
// yaegi fails on those outside functions ("undefined: ok", "nil type"), so
// the statement runs inside a function literal. It declares no globals, so
// nothing changes for later statements.
//
// The same holds for a statement that defines, in an inner scope, a name
// the session also has as a global: yaegi assigns the global instead.
func needsFuncScope(st ast.Stmt, info *types.Info, pkg *types.Package) bool {
	switch st.(type) {
	case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) >= 2 && len(n.Rhs) == 1 {
				found = true
			}
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && info.Defs[id] != nil && pkg != nil && pkg.Scope().Lookup(id.Name) != nil {
						found = true
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) >= 2 && len(n.Values) == 1 {
				found = true
			}
		}
		return !found
	})
	return found
}

// commaOK works around yaegi failing on `v, ok := m[k]` (also x.(T) and
// <-c) outside functions ("nil type"): the two values come from a function
// literal instead.
func (r *rewriter) commaOK(lhs []ast.Expr, rhs []ast.Expr) {
	if !r.topLevel() || len(lhs) != 2 || len(rhs) != 1 {
		return
	}
	var valueType types.Type
	switch x := ast.Unparen(rhs[0]).(type) {
	case *ast.IndexExpr:
		m, ok := r.typeOf(x.X).Underlying().(*types.Map)
		if !ok {
			return
		}
		valueType = m.Elem()
	case *ast.TypeAssertExpr:
		if x.Type == nil {
			return
		}
		valueType = r.typeOf(x.Type)
	case *ast.UnaryExpr:
		if x.Op != token.ARROW {
			return
		}
		c, ok := r.typeOf(x.X).Underlying().(*types.Chan)
		if !ok {
			return
		}
		valueType = c.Elem()
	default:
		return
	}
	if valueType == nil {
		return
	}
	t := r.ctx.typeText(valueType, r.subst)
	r.replaceNode(rhs[0], "func() ("+t+", bool) { ʟv, ʟok := "+r.nodeText(rhs[0])+"; return ʟv, ʟok }()")
}

// deferArgs evaluates a deferred call's arguments before the defer
// statement: yaegi evaluates them when the deferred call runs.
func (r *rewriter) deferArgs(n *ast.DeferStmt) {
	call := n.Call
	var names, vals []string
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		args[i] = r.nodeText(a)
		tv := r.code.info.Types[a]
		if tv.Value != nil || tv.IsNil() || tv.IsType() {
			continue
		}
		if _, lit := ast.Unparen(a).(*ast.FuncLit); lit {
			continue
		}
		if tup, ok := tv.Type.(*types.Tuple); ok {
			var parts []string
			for range tup.Len() {
				nm := r.ctx.name("d")
				names = append(names, nm)
				parts = append(parts, nm)
			}
			vals = append(vals, args[i])
			args[i] = strings.Join(parts, ", ")
			continue
		}
		nm := r.ctx.name("d")
		names = append(names, nm)
		vals = append(vals, args[i])
		args[i] = nm
	}
	if len(names) == 0 {
		return
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	text := strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; defer " + r.nodeText(call.Fun) + "(" + strings.Join(args, ", ") + ell + ")"
	r.replaceNode(n, text)
}
