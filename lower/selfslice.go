package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A slice or map type whose elements are the type itself (`type S []S`,
// `type M map[string]M`) makes yaegi v0.16.1 fail as it builds the type
// ("CFG post-order panic: ... nil pointer dereference"). As for func
// types (selffunc.go), the lowering cuts the recursion through any: the
// declaration's element type is interface{}, and an element read by an
// index expression comes back as the type (ʟcut_S, a nil interface a nil
// S). Stores need nothing: an S goes into interface{} as it is.
//
// What is not kept: a nil element prints as <nil> (Go: []) and a range
// over S gives its values as interface{} (the loop is left alone), and an
// element stored from the unnamed type []S is read back as nil.

// selfElemOf returns t as a named slice or map type of the session whose
// element type is t itself.
func (r *rewriter) selfElemOf(t types.Type) (*types.Named, bool) {
	n, ok := r.namedOf(t)
	if !ok || !r.ctx.chk.local(n.Obj().Pkg()) || n.TypeArgs().Len() > 0 {
		return nil, false
	}
	var elem types.Type
	switch u := n.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Map:
		elem = u.Elem()
	default:
		return nil, false
	}
	return n, types.Identical(elem, n)
}

func (r *rewriter) selfElemDecl(ts *ast.TypeSpec) {
	obj := r.code.info.Defs[ts.Name]
	if obj == nil || ts.Assign.IsValid() {
		return
	}
	if _, ok := r.selfElemOf(obj.Type()); !ok {
		return
	}
	switch t := ast.Unparen(ts.Type).(type) {
	case *ast.ArrayType:
		r.replaceNode(t.Elt, "interface{}")
	case *ast.MapType:
		r.replaceNode(t.Value, "interface{}")
	default:
		return
	}
	r.markSelfType()
}

// selfElemIndex converts an element read from a cut slice or map.
func (r *rewriter) selfElemIndex(ix *ast.IndexExpr) {
	n, ok := r.selfElemOf(r.typeOf(ix.X))
	if !ok || r.selfElemStored(ix) {
		return
	}
	t := r.ctx.typeExprText(n, r.subst)
	name := "ʟcut_" + mangle(t)
	r.ctx.declare(name, func() string {
		return "func " + name + "(v interface{}) " + t + " { s, _ := v.(" + t + "); return s }"
	})
	r.replaceNode(ix, name+"("+r.nodeText(ix)+")")
}

// selfElemStored reports an index expression that is written, addressed
// or read with comma-ok, where it must stay as it is.
func (r *rewriter) selfElemStored(ix *ast.IndexExpr) bool {
	switch p := r.parent().(type) {
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == ix {
				return true
			}
		}
		return len(p.Rhs) == 1 && p.Rhs[0] == ix && len(p.Lhs) == 2
	case *ast.ValueSpec:
		return len(p.Values) == 1 && p.Values[0] == ix && len(p.Names) == 2
	case *ast.IncDecStmt:
		return true
	case *ast.UnaryExpr:
		return p.Op == token.AND
	case *ast.RangeStmt:
		return p.Key == ix || p.Value == ix
	}
	return false
}
