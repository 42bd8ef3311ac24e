package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// finalizerLit moves a function literal given to runtime.SetFinalizer into a
// top-level function that makes it: `runtime.SetFinalizer(x, func(p *T)
// {...})` becomes `runtime.SetFinalizer(x, ʟfinN(c))` with `func ʟfinN(c
// chan int) func(p *T) { return func(p *T) {...} }`. A closure of yaegi
// v0.16.1 holds the whole frame it was made in, x included: the object was
// reachable from its own finalizer and never collected. The literal's
// variables of the enclosing function are passed by value, so it is done
// only when none of them is assigned or has its address taken after its
// definition, and each is of a type whose copy shares what it refers to.
func (r *rewriter) finalizerLit(n *ast.CallExpr) {
	if len(n.Args) != 2 || !r.isPkgFunc(n.Fun, "runtime", "SetFinalizer") {
		return
	}
	lit, ok := ast.Unparen(n.Args[1]).(*ast.FuncLit)
	if !ok {
		return
	}
	outer := r.enclosingFunc()
	if outer == nil {
		return // at the top level of the cell: nothing local to hold
	}
	info := r.code.info
	var captured []*types.Var
	seen := map[*types.Var]bool{}
	ok = true
	ast.Inspect(lit.Body, func(x ast.Node) bool {
		id, isID := x.(*ast.Ident)
		if !isID {
			return ok
		}
		v, isVar := info.Uses[id].(*types.Var)
		if !isVar || v.IsField() || seen[v] || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			return ok
		}
		if v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return ok // its own
		}
		seen[v] = true
		if !sharedByCopy(r.concrete(v.Type())) || reassigned(outer, info, v) {
			ok = false
		}
		captured = append(captured, v)
		return ok
	})
	if !ok {
		return
	}
	sig := r.typeOf(lit)
	if sig == nil {
		return
	}
	all := []types.Type{sig}
	for _, v := range captured {
		all = append(all, r.concrete(v.Type()))
	}
	for _, t := range all {
		if len(localTypesIn(t, nil, map[types.Type]bool{})) > 0 {
			return // a type the top level does not see
		}
	}
	params := make([]string, len(captured))
	args := make([]string, len(captured))
	for i, v := range captured {
		params[i] = v.Name() + " " + r.ctx.typeText(r.concrete(v.Type()), r.subst)
		args[i] = v.Name()
	}
	body := r.nodeText(lit)
	sigText := r.ctx.typeText(sig, r.subst)
	name := r.ctx.name("fin") + "_" + shortHash(string(r.code.src)+body)
	r.ctx.declare(name, func() string {
		return "func " + name + "(" + strings.Join(params, ", ") + ") " + sigText + " {\n\treturn " + body + "\n}"
	})
	r.replaceNode(n.Args[1], name+"("+strings.Join(args, ", ")+")")
}

// isPkgFunc reports whether fun names function name of package path.
func (r *rewriter) isPkgFunc(fun ast.Expr, path, name string) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	f, ok := r.code.info.Uses[sel.Sel].(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == path && f.Name() == name
}

// enclosingFunc returns the outermost function declaration or literal
// around the node being visited (nil at the cell's top level).
func (r *rewriter) enclosingFunc() ast.Node {
	for _, n := range r.stack {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return n
		}
	}
	return nil
}

// sharedByCopy reports a type whose copy refers to the same variables as
// the original (or is a value that cannot change).
func sharedByCopy(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Chan, *types.Map, *types.Signature, *types.Slice, *types.Basic, *types.Interface:
		return true
	}
	return false
}

// reassigned reports whether v is assigned, incremented or has its address
// taken anywhere in fn (its definition aside).
func reassigned(fn ast.Node, info *types.Info, v *types.Var) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == v
	}
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		case *ast.RangeStmt:
			found = found || n.Tok == token.ASSIGN && (n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value))
		}
		return !found
	})
	return found
}
