package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// A generic function instantiated with a function-local type (`type S
// struct{...}` inside main, then f[S]) cannot be a package-level function:
// S is not in scope there (yaegi v0.16.1 says "constant definition loop").
// Its instance is a function variable declared right after the statement
// that declares the last of those types, in the same block.

// localInsts are the instances one cell declares inside its functions,
// by where they go (the end of a type's declaration statement).
type localInsts struct {
	vars    map[token.Pos][]string // `var NAME func(...)`, all before any assignment
	assigns map[token.Pos][]string // `NAME = func(...) {...}`, dependencies first
}

// localTypesIn appends the function-local named types t is built from.
func localTypesIn(t types.Type, out []*types.TypeName, seen map[types.Type]bool) []*types.TypeName {
	if seen[t] {
		return out
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() && obj.Parent() != types.Universe {
			out = append(out, obj)
		}
		for i := range t.TypeArgs().Len() {
			out = localTypesIn(t.TypeArgs().At(i), out, seen)
		}
	case *types.Pointer:
		out = localTypesIn(t.Elem(), out, seen)
	case *types.Slice:
		out = localTypesIn(t.Elem(), out, seen)
	case *types.Array:
		out = localTypesIn(t.Elem(), out, seen)
	case *types.Chan:
		out = localTypesIn(t.Elem(), out, seen)
	case *types.Map:
		out = localTypesIn(t.Key(), out, seen)
		out = localTypesIn(t.Elem(), out, seen)
	case *types.Struct:
		for i := range t.NumFields() {
			out = localTypesIn(t.Field(i).Type(), out, seen)
		}
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				out = localTypesIn(tup.At(i).Type(), out, seen)
			}
		}
	}
	return out
}

// localKey distinguishes local types of the same name in an instance's key.
func localKey(args []types.Type) string {
	var b strings.Builder
	for _, a := range args {
		for _, tn := range localTypesIn(a, nil, map[types.Type]bool{}) {
			b.WriteString("@" + strconv.Itoa(int(tn.Pos())))
		}
	}
	return b.String()
}

// localAnchor returns where an instance for args must be declared: the end
// of the statement declaring the last local type among them, in the current
// cell; NoPos when args have no local type. ok is false when a local type
// is not the current cell's.
func (ctx *lowerCtx) localAnchor(args []types.Type) (at token.Pos, ok bool) {
	var locals []*types.TypeName
	for _, a := range args {
		locals = localTypesIn(a, locals, map[types.Type]bool{})
	}
	if len(locals) == 0 {
		return token.NoPos, true
	}
	c := ctx.chk.cur
	for _, tn := range locals {
		if !c.contains(tn.Pos()) {
			return token.NoPos, false
		}
		var stmt ast.Stmt
		ast.Inspect(c.file, func(n ast.Node) bool {
			if n == nil || stmt != nil || tn.Pos() < n.Pos() || tn.Pos() >= n.End() {
				return false
			}
			if ds, isDecl := n.(*ast.DeclStmt); isDecl {
				stmt = ds
				return false
			}
			return true
		})
		if stmt == nil {
			return token.NoPos, false
		}
		if stmt.End() > at {
			at = stmt.End()
		}
	}
	return at, true
}

// declareLocal adds the instance name as a function variable at at; text
// is called once the name is reserved (so recursive instances terminate).
func (ctx *lowerCtx) declareLocal(at token.Pos, name string, text func() (sig, body string)) {
	if ctx.defined[name] {
		return
	}
	ctx.defined[name] = true
	if ctx.local.vars == nil {
		ctx.local = localInsts{vars: map[token.Pos][]string{}, assigns: map[token.Pos][]string{}}
	}
	sig, body := text() // may declare the instances it calls first
	ctx.local.vars[at] = append(ctx.local.vars[at], "var "+name+" func"+sig)
	ctx.local.assigns[at] = append(ctx.local.assigns[at], name+" = func"+sig+" "+body)
}

// insertLocal writes the local instances into the cell's rewriter.
func (ctx *lowerCtx) insertLocal(r *rewriter) {
	for at, vars := range ctx.local.vars {
		r.insert(r.off(at), "; "+strings.Join(vars, "; ")+"; "+strings.Join(ctx.local.assigns[at], "; "))
	}
}

// instantiateLocal writes the signature and body of a generic function's
// instance for args.
func (ctx *lowerCtx) instantiateLocal(st *site, args []types.Type) (sig, body string) {
	d := st.decl.(*ast.FuncDecl)
	fn := st.code.info.Defs[d.Name].(*types.Func)
	r := newRewriter(ctx, st.code, bind(fn.Type().(*types.Signature).TypeParams(), args))
	r.walk(d)
	return r.text(r.off(d.Type.Params.Pos()), r.off(d.Type.End())), r.nodeText(d.Body)
}

// impossibleAssert lowers, in an instance, a type assertion that its
// concrete types make impossible (`x.(T)` with x of an interface T lacks a
// method of), which Go allows in generic code and fails at run time, and
// yaegi v0.16.1 refuses to compile: the operand is asserted from any.
func (r *rewriter) impossibleAssert(n *ast.TypeAssertExpr) {
	if r.subst == nil || n.Type == nil {
		return
	}
	xt, ok := substType(r.code.info.TypeOf(n.X), r.subst).Underlying().(*types.Interface)
	if !ok || xt.Empty() {
		return
	}
	t := substType(r.code.info.TypeOf(n.Type), r.subst)
	if t == nil || types.IsInterface(t) || types.AssertableTo(xt, t) {
		return
	}
	if r.impossibleAssertPanic(n, substType(r.code.info.TypeOf(n.X), r.subst), t) { // generic_assert.go
		return
	}
	r.replaceNode(n.X, "any("+r.nodeText(n.X)+")")
}
