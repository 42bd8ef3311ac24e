package lower

import (
	"go/ast"
	"go/types"
)

// A pointer type that points to itself (`type P *P`, Peano numbers) makes
// yaegi v0.16.1 fail as it builds the type ("reflect.Type is nil"). The
// lowering declares P as an alias of interface{}: a P value is then an
// interface holding the *interface{} that Go's P is (nil stays a nil
// interface), and *P is *interface{}, which is what a P points to. Where
// the type checker moves a value between P and *P (Go's types are
// identical underneath, so it does so freely) the lowering converts:
// ʟselfPtrOf(*P) is a P, ʟselfPtr(P) a *P, and `*p` of a P is
// `*ʟselfPtr(p)`.
//
// What is not kept: P has no name of its own in yaegi (%T prints
// *interface {}), and a P compared with a *P is not converted.

// isSelfPtr reports a pointer type of the session that points to itself.
func (r *rewriter) isSelfPtr(t types.Type) bool {
	n, ok := r.namedOf(t)
	if !ok || !r.ctx.chk.local(n.Obj().Pkg()) || n.TypeArgs().Len() > 0 {
		return false
	}
	p, ok := n.Underlying().(*types.Pointer)
	return ok && types.Identical(p.Elem(), n)
}

// ptrToSelfPtr reports *P of a self pointer P (the unnamed type).
func (r *rewriter) ptrToSelfPtr(t types.Type) bool {
	p, ok := types.Unalias(r.concrete(t)).(*types.Pointer)
	return ok && r.isSelfPtr(p.Elem())
}

func (r *rewriter) selfPtrDecl(ts *ast.TypeSpec) {
	obj := r.code.info.Defs[ts.Name]
	if obj == nil || ts.Assign.IsValid() || !r.isSelfPtr(obj.Type()) {
		return
	}
	r.replaceNode(ts.Type, "= interface{}")
	r.markSelfType()
}

// selfPtrDeref writes `*p` of a P as `*ʟselfPtr(p)`.
func (r *rewriter) selfPtrDeref(st *ast.StarExpr) {
	if tv, ok := r.code.info.Types[st.X]; !ok || tv.IsType() || !r.isSelfPtr(tv.Type) {
		return
	}
	r.replaceNode(st.X, r.selfPtrHelper(false)+"("+r.nodeText(st.X)+")")
}

// selfPtrValue converts e, of type P or *P, where it is assigned to the
// other one.
func (r *rewriter) selfPtrValue(e ast.Expr, target types.Type) (string, bool) {
	tv := r.code.info.Types[e]
	if tv.Type == nil || tv.IsNil() {
		return "", false
	}
	switch {
	case r.isSelfPtr(target) && r.ptrToSelfPtr(tv.Type):
		return r.selfPtrHelper(true) + "(" + r.nodeText(e) + ")", true
	case r.ptrToSelfPtr(target) && r.isSelfPtr(tv.Type):
		return r.selfPtrHelper(false) + "(" + r.nodeText(e) + ")", true
	}
	return "", false
}

// selfPtrConv writes a conversion P(x) or (*P)(x) that crosses between the
// two.
func (r *rewriter) selfPtrConv(e ast.Expr, target types.Type) (string, bool) {
	if text, ok := r.selfPtrValue(e, target); ok {
		return text, true
	}
	if r.isSelfPtr(target) && !r.code.info.Types[e].IsNil() {
		// P(p) of a P: interface{}(p) would box a nil *interface{}.
		return r.nodeText(e), true
	}
	return "", false
}

// selfPtrHelper returns the name of ʟselfPtrOf (of: *P to P) or ʟselfPtr
// (P to *P), declaring it.
func (r *rewriter) selfPtrHelper(of bool) string {
	if of {
		r.ctx.declare("ʟselfPtrOf", func() string {
			return "func ʟselfPtrOf(p *interface{}) interface{} { if p == nil { return nil }; return p }"
		})
		return "ʟselfPtrOf"
	}
	r.ctx.declare("ʟselfPtr", func() string {
		return "func ʟselfPtr(v interface{}) *interface{} { p, _ := v.(*interface{}); return p }"
	})
	return "ʟselfPtr"
}
