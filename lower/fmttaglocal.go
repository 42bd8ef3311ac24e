package lower

import (
	"go/ast"
	"go/types"
	"reflect"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// A value whose type mentions a type declared in a function (`type L
// struct{ C Color }`, []L) stored in an interface is, to a print site
// that does not see the type (the caller of a `func mk() any`), a plain
// struct or slice of its underlying types: it printed {1 2} for Go's
// {C1 2}. Where go/types sees the conversion inside the function, the
// value is tagged as a package-level type's is (fmttag.go), by a
// Rebuilder made there at the first conversion and held in a
// package-level fmtmirror.LocalRebuilder: a slice, map or pointer by its
// identity, a struct or an array in a box of its own (fmtmirror.TagBox).

func init() {
	Runtime[rtPath+"/rt"]["NewLocalRebuilder"] = reflect.ValueOf(fmtmirror.NewLocalRebuilder)
	Runtime[rtPath+"/rt"]["LocalRebuilder"] = reflect.ValueOf((*fmtmirror.LocalRebuilder)(nil))
}

// tagLocal tags e, of type t converted to the interface to; it reports
// whether it did.
func (r *rewriter) tagLocal(e ast.Expr, t, to types.Type) bool {
	if !r.taggableLocal(t) || !r.boxable(to) || r.inPrintCall() {
		return false
	}
	call, hash, ok := r.rebuilderCall(t, e.Pos())
	if !ok {
		return false
	}
	rt := r.ctx.qualify(rtPath)
	// Two functions' types of one name and one layout share it: their
	// rebuilders are the same code.
	cache := "ʟtaglocal_" + hash
	r.ctx.declare(cache, func() string {
		return "var " + cache + " = " + rt + ".NewLocalRebuilder()"
	})
	tt := r.ctx.typeText(t, r.subst)
	by := cache + ".Get(func() *" + rt + ".Rebuilder { return " + call + " })"
	switch t.Underlying().(type) {
	case *types.Struct, *types.Array:
		r.replaceNode(e, "func(v "+tt+") interface{} { return "+rt+".MirrorTagBox(v, "+by+") }("+r.nodeText(e)+")")
	default:
		r.replaceNode(e, "func(v "+tt+") "+tt+" { "+rt+".MirrorTag(v, "+by+"); return v }("+r.nodeText(e)+")")
	}
	return true
}

// taggableLocal reports whether a value of t, which mentions a type
// declared in a function, loses in an interface what prints it as Go
// does, and can be tagged: a struct, array, slice, map or pointer
// without methods (yaegi wraps a value of a type with methods), not
// generic, whose parts print by the session's methods.
func (r *rewriter) taggableLocal(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Struct, *types.Slice, *types.Map, *types.Array:
	case *types.Pointer:
		if _, isIface := u.Elem().Underlying().(*types.Interface); isIface {
			return false
		}
	default:
		return false
	}
	if types.NewMethodSet(t).Len() > 0 || hasTypeParam(t) || !r.mentionsLocalType(t, 0) || r.mentionsInstance(t, 0) {
		return false
	}
	m := &mirror{r: r, static: true, path: map[*types.Named]int{}}
	return m.needs(t, 0, false)
}

// inPrintCall reports whether the node being rewritten is inside an
// operand of a print call, which rebuilds it from its static type
// (fmtstatic.go) and must see it as it is; a func literal in between
// starts code of its own.
func (r *rewriter) inPrintCall() bool {
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch n := r.stack[i].(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if _, ok := r.printFunc(n); ok {
				return true
			}
		}
	}
	return false
}
