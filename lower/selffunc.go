package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A func type whose parameters or results are the type itself
// (`type F func(string) F`, `type G func(int, G) (int, int)`, generic
// `type Src[T any] func() Src[T]`) makes yaegi v0.16.1 fail as soon as it
// builds the type ("interface conversion: reflect.Type is nil"): reflect
// cannot make a recursive func type. The lowering cuts the recursion
// through any: in the type's declaration those parameters and results are
// `any`, and every place the type checker says a value crosses the cut is
// converted:
//
//   - a call of an F value gets its cut results back as F (ʟcut_F, which
//     turns a nil any into a nil F) and its cut arguments as F values;
//   - a function of the unnamed type `func(string) F` that becomes an F
//     (a conversion `F(a)`, an argument, a result, an assignment, a
//     variable's initialiser) is adapted to the cut signature.
//
// What is not kept: `%T` of an F value is yaegi's func type with `any` at
// the cut, as every yaegi func type prints without its name.

// selfFunc describes a func type cut by the lowering.
type selfFunc struct {
	named   *types.Named
	sig     *types.Signature // the type's own (uncut) signature
	params  []bool           // cut parameters
	results []bool           // cut results
}

// selfFuncOf returns the cut of t, when t is a named func type of the
// session whose signature mentions the type itself.
func (r *rewriter) selfFuncOf(t types.Type) (selfFunc, bool) {
	n, ok := r.namedOf(t)
	if !ok || !r.ctx.chk.local(n.Obj().Pkg()) {
		return selfFunc{}, false
	}
	sig, ok := n.Underlying().(*types.Signature)
	if !ok {
		return selfFunc{}, false
	}
	origin := n.Origin()
	self := func(t types.Type) bool {
		m, ok := types.Unalias(t).(*types.Named)
		return ok && m.Origin() == origin
	}
	sf := selfFunc{named: n, sig: sig, params: make([]bool, sig.Params().Len()), results: make([]bool, sig.Results().Len())}
	any := false
	for i := range sig.Params().Len() {
		sf.params[i] = self(sig.Params().At(i).Type())
		any = any || sf.params[i]
	}
	for i := range sig.Results().Len() {
		sf.results[i] = self(sig.Results().At(i).Type())
		any = any || sf.results[i]
	}
	return sf, any
}

// namedOf returns t as a named type, its type arguments substituted in an
// instance. Only a named type is substituted: substituting every callee's
// signature in generic code would allocate for nothing.
func (r *rewriter) namedOf(t types.Type) (*types.Named, bool) {
	n, ok := types.Unalias(r.concrete(types.Unalias(t))).(*types.Named)
	if !ok {
		return nil, false
	}
	if n.TypeArgs().Len() > 0 && len(r.subst) > 0 {
		n, ok = types.Unalias(substType(n, r.subst)).(*types.Named)
	}
	return n, ok
}

// selfFuncs is the post-order hook of the lowering.
func (r *rewriter) selfFuncs(n ast.Node) {
	switch n := n.(type) {
	case *ast.TypeSpec:
		r.selfFuncDecl(n)
		r.selfPtrDecl(n)
		r.selfElemDecl(n)
	case *ast.IndexExpr:
		r.selfElemIndex(n)
	case *ast.StarExpr:
		r.selfPtrDeref(n)
	case *ast.CallExpr:
		r.selfFuncCall(n)
	case *ast.ReturnStmt:
		f := r.fn()
		if f.sig == nil || len(n.Results) != f.sig.Results().Len() {
			return
		}
		for i, e := range n.Results {
			r.toSelfFunc(e, f.sig.Results().At(i).Type())
		}
	case *ast.AssignStmt:
		if n.Tok != token.ASSIGN || len(n.Lhs) != len(n.Rhs) {
			return
		}
		for i, e := range n.Rhs {
			r.toSelfFunc(e, r.typeOf(n.Lhs[i]))
		}
	case *ast.ValueSpec:
		if n.Type == nil || len(n.Values) != len(n.Names) {
			return
		}
		for _, e := range n.Values {
			r.toSelfFunc(e, r.typeOf(n.Type))
		}
	}
}

// selfFuncDecl writes the cut parameters and results of a declaration as any.
func (r *rewriter) selfFuncDecl(ts *ast.TypeSpec) {
	ft, ok := ast.Unparen(ts.Type).(*ast.FuncType)
	if !ok {
		return
	}
	obj := r.code.info.Defs[ts.Name]
	if obj == nil {
		return
	}
	sf, ok := r.selfFuncOf(obj.Type())
	if !ok {
		return
	}
	cut := func(fl *ast.FieldList, which []bool) {
		if fl == nil {
			return
		}
		i := 0
		for _, f := range fl.List {
			n := max(len(f.Names), 1)
			if i < len(which) && which[i] {
				r.replaceNode(f.Type, "any")
			}
			i += n
		}
	}
	cut(ft.Params, sf.params)
	cut(ft.Results, sf.results)
	r.markSelfType()
}

// selfFuncCall converts what crosses a cut in a call: a conversion to a
// cut type, the arguments of a cut parameter, the cut results of a call of
// a cut type's value.
func (r *rewriter) selfFuncCall(call *ast.CallExpr) {
	info := r.code.info
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) == 1 {
			if text, ok := r.selfFuncValue(call.Args[0], r.typeOf(call.Fun)); ok {
				r.replaceNode(call, text)
			} else if text, ok := r.selfPtrConv(call.Args[0], r.typeOf(call.Fun)); ok {
				r.replaceNode(call, text)
			}
		}
		return
	}
	ft := r.typeOf(call.Fun)
	if ft == nil {
		return
	}
	sig, ok := ft.Underlying().(*types.Signature)
	if !ok {
		return
	}
	sf, cutCall := r.selfFuncOf(ft)
	for i, a := range call.Args {
		if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
			break
		}
		if cutCall && sf.params[i] && r.code.info.Types[a].IsNil() {
			r.replaceNode(a, r.ctx.typeExprText(sf.named, r.subst)+"(nil)")
			continue
		}
		r.toSelfFunc(a, sig.Params().At(i).Type())
	}
	if cutCall && len(sf.results) == 1 && sf.results[0] {
		r.replaceNode(call, r.selfFuncCast(sf)+"("+r.nodeText(call)+")")
	}
}

// toSelfFunc adapts e where it is assigned to a value of type target: to
// a cut func type (selfFuncValue) or across a self pointer (selfPtrValue).
func (r *rewriter) toSelfFunc(e ast.Expr, target types.Type) {
	if target == nil {
		return
	}
	if text, ok := r.selfFuncValue(e, target); ok {
		r.replaceNode(e, text)
	} else if text, ok := r.selfPtrValue(e, target); ok {
		r.replaceNode(e, text)
	}
}

// selfFuncValue returns e as a value of the cut type target, when e is a
// function of another type (the unnamed func type the declaration spells).
func (r *rewriter) selfFuncValue(e ast.Expr, target types.Type) (string, bool) {
	sf, ok := r.selfFuncOf(target)
	if !ok {
		return "", false
	}
	tv := r.code.info.Types[e]
	if tv.Type == nil || tv.IsNil() {
		return "", false
	}
	src := r.concrete(tv.Type)
	if types.Identical(substType(src, r.subst), sf.named) {
		return "", false
	}
	if _, ok := src.Underlying().(*types.Signature); !ok {
		return "", false
	}
	sig := sf.sig
	var params, args, results []string
	for i := range sig.Params().Len() {
		name := fmt.Sprintf("ʟp%d", i)
		t := r.ctx.typeText(sig.Params().At(i).Type(), r.subst)
		arg := name
		if sf.params[i] {
			t, arg = "any", r.selfFuncCast(sf)+"("+name+")"
		}
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = "..." + r.ctx.typeText(sig.Params().At(i).Type().(*types.Slice).Elem(), r.subst)
			arg += "..."
		}
		params = append(params, name+" "+t)
		args = append(args, arg)
	}
	for i := range sig.Results().Len() {
		t := r.ctx.typeText(sig.Results().At(i).Type(), r.subst)
		if sf.results[i] {
			t = "any"
		}
		results = append(results, t)
	}
	cut := "func(" + strings.Join(params, ", ") + ")"
	body := "ʟf(" + strings.Join(args, ", ") + ")"
	switch len(results) {
	case 0:
	case 1:
		cut += " " + results[0]
		body = "return " + body
	default:
		cut += " (" + strings.Join(results, ", ") + ")"
		body = "return " + body
	}
	name := r.ctx.typeExprText(sf.named, r.subst)
	return name + "(func(ʟf " + r.ctx.typeText(src, r.subst) + ") " + cut + " { return " + cut + " { " + body + " } }(" + r.nodeText(e) + "))", true
}

// selfFuncCast returns the name of the function that turns a cut value
// back into its type (a nil any into a nil value), declaring it.
func (r *rewriter) selfFuncCast(sf selfFunc) string {
	t := r.ctx.typeExprText(sf.named, r.subst)
	name := "ʟcut_" + mangle(t)
	r.ctx.declare(name, func() string {
		return "func " + name + "(v any) " + t + " { f, _ := v.(" + t + "); return f }"
	})
	return name
}
