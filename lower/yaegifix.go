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
	if definesInHeader(st) {
		return true
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			// selectAssign turns `case x, ok = <-c` into a definition.
			if as, ok := n.Comm.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN && len(as.Lhs) >= 2 {
				found = true
			}
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

// definesInHeader reports a statement whose header defines variables
// (`for i := 0; ...`, `for k, v := range`, `if v := f(); ...`): at top
// level yaegi v0.16.1 makes them globals of the session, so a later loop's
// per-iteration copy `i := ʟv` assigned the old global and every closure
// shared it.
func definesInHeader(st ast.Stmt) bool {
	isDefine := func(s ast.Stmt) bool {
		as, ok := s.(*ast.AssignStmt)
		return ok && as.Tok == token.DEFINE
	}
	switch st := st.(type) {
	case *ast.ForStmt:
		return isDefine(st.Init)
	case *ast.RangeStmt:
		return st.Tok == token.DEFINE
	case *ast.IfStmt:
		return isDefine(st.Init)
	case *ast.SwitchStmt:
		return isDefine(st.Init)
	case *ast.TypeSwitchStmt:
		return isDefine(st.Init) || isDefine(st.Assign)
	case *ast.LabeledStmt:
		return definesInHeader(st.Stmt)
	}
	return false
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

// litWithLeadingParams is lit's text with params ("name type") before
// its own parameters.
func (r *rewriter) litWithLeadingParams(lit *ast.FuncLit, params []string) string {
	sep := ""
	if lit.Type.Params.NumFields() > 0 {
		sep = ", "
	}
	open := r.off(lit.Type.Params.Opening) + 1
	return r.text(r.off(lit.Pos()), open) + strings.Join(params, ", ") + sep + r.text(open, r.off(lit.End()))
}

// deferArgs evaluates a deferred call's arguments before the defer
// statement: yaegi evaluates them when the deferred call runs. A deferred
// function literal gets the loop-scoped variables it captures as leading
// parameters (see loopCaptures).
func (r *rewriter) deferArgs(n *ast.DeferStmt) {
	call := n.Call
	var names, vals []string
	fun := r.nodeText(call.Fun)
	var pre []string
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		var params []string
		for _, v := range r.loopCaptures(lit) {
			params = append(params, v.Name()+" "+r.ctx.typeText(v.Type(), r.subst))
			pre = append(pre, v.Name())
		}
		if len(params) > 0 {
			fun = r.litWithLeadingParams(lit, params)
		}
	}
	recvDecl := ""
	if recv, _, sel, ok := r.boundRecv(call); ok { // see deferrecv.go
		nm := r.ctx.name("d")
		// A statement of its own: among several values, a composite
		// literal argument would make yaegi lose the others (multilit.go).
		recvDecl = nm + " := " + recv + "; "
		fun = nm + "." + sel.Sel.Name
	}
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
	if len(names) == 0 && len(pre) == 0 && recvDecl == "" {
		return
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	text := "defer " + fun + "(" + strings.Join(append(pre, args...), ", ") + ell + ")"
	if len(names) > 0 {
		text = strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; " + text
	}
	r.replaceNode(n, recvDecl+text)
}

// loopCaptures lists the variables declared inside a loop of the enclosing
// function that the deferred literal lit uses and nobody assigns after
// their definition. yaegi makes the closure of a deferred literal when the
// deferred call runs, so it sees the variables of the last iteration; as
// parameters, they are bound when the defer statement runs, as in Go.
func (r *rewriter) loopCaptures(lit *ast.FuncLit) []*types.Var {
	var loops []ast.Node
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch s := r.stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			i = -1
		case *ast.ForStmt, *ast.RangeStmt:
			loops = append(loops, s)
		}
	}
	if len(loops) == 0 {
		return nil
	}
	var vars []*types.Var
	seen := map[*types.Var]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := r.code.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || seen[v] || v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return true
		}
		for _, l := range loops {
			if v.Pos() >= l.Pos() && v.Pos() < l.End() {
				if !r.reassigned(v, l) {
					seen[v] = true
					vars = append(vars, v)
				}
				break
			}
		}
		return true
	})
	return vars
}

// reassigned reports whether v, declared in loop, is assigned after its
// definition, other than by the post statement of the three-clause loop
// declaring it (each iteration has its own copy, see loopVarFor).
func (r *rewriter) reassigned(v *types.Var, loop ast.Node) bool {
	var post ast.Stmt
	if f, ok := loop.(*ast.ForStmt); ok && f.Init != nil && v.Pos() >= f.Init.Pos() && v.Pos() < f.Init.End() {
		post = f.Post
	}
	for _, p := range r.facts.assigned[v] {
		if post == nil || p < post.Pos() || p >= post.End() {
			return true
		}
	}
	return false
}

// cellDefer lowers a defer of the cell's top level: yaegi runs it when the
// Eval of its statement ends, Go when main returns. At the REPL a cell is
// the body of main: the call, its arguments evaluated now, goes on a list
// that the end of the cell runs, last in first out.
func (r *rewriter) cellDefer(n *ast.DeferStmt) {
	ctx := r.ctx
	ctx.declare(cellDefersVar, func() string { return "var " + cellDefersVar + " []func()" })
	ctx.declare(cellDefersRun, func() string {
		return "func " + cellDefersRun + "(fs []func()) []func() {\n\tfor i := len(fs) - 1; i >= 0; i-- {\n\t\tfs[i]()\n\t}\n\treturn nil\n}"
	})
	ctx.cellDefers = true
	call := n.Call
	var params, vals []string
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
		vals = append(vals, args[i])
		if tup, ok := tv.Type.(*types.Tuple); ok {
			var names []string
			for k := range tup.Len() {
				nm := ctx.name("a")
				names = append(names, nm)
				params = append(params, nm+" "+ctx.typeText(tup.At(k).Type(), r.subst))
			}
			args[i] = strings.Join(names, ", ")
			continue
		}
		nm := ctx.name("a")
		params = append(params, nm+" "+ctx.typeText(tv.Type, r.subst))
		args[i] = nm
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	body := r.nodeText(call.Fun) + "(" + strings.Join(args, ", ") + ell + ")"
	r.replaceNode(n, cellDefersVar+" = append("+cellDefersVar+", func("+strings.Join(params, ", ")+") func() { return func() { "+body+" } }("+strings.Join(vals, ", ")+"))")
}

const (
	cellDefersVar = "ʟdefers"
	cellDefersRun = "ʟrunDefers"
)
