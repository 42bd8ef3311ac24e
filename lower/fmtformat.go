package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// A Format(fmt.State, rune) method of the session's types is called by fmt
// for every verb (but %T and %p), before GoString, Error and String. yaegi
// calls it only at the top of an operand; below it (a field, an element,
// what an interface holds) the value reaches fmt without it, and a numeric
// verb's operand was converted to its basic type. The mirror hands fmt
// the method value instead (fmtmirror.Formatter), which fmt calls with
// its own State: flags, width and precision as the operand's verb has them.

// fmtMethodNames are the methods through which fmt prints a value.
var fmtMethodNames = map[string]bool{"String": true, "Error": true, "Format": true, "GoString": true}

// formats reports whether a value of type t (not an interface) has a
// Format method of the session's with fmt.Formatter's signature.
func (r *rewriter) formats(t types.Type) bool {
	if t == nil || types.IsInterface(t) {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, false, r.ctx.chk.pkg, "Format")
	f, ok := obj.(*types.Func)
	if !ok || !r.ctx.chk.local(f.Pkg()) {
		return false
	}
	sig := f.Type().(*types.Signature)
	if sig.Params().Len() != 2 || sig.Results().Len() != 0 || sig.Variadic() {
		return false
	}
	st, ok := types.Unalias(sig.Params().At(0).Type()).(*types.Named)
	return ok && st.Obj().Pkg() != nil && st.Obj().Pkg().Path() == "fmt" && st.Obj().Name() == "State" &&
		types.Identical(sig.Params().At(1).Type(), types.Typ[types.Rune])
}

// genFormatter is code that hands fmt x's Format method value; a nil
// pointer prints <nil>.
func (m *mirror) genFormatter(t types.Type, tt, x string) string {
	body := "return " + m.rt + ".MirrorFormatter(v.Format)"
	if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
		body = "if v == nil { return nil }; " + body
	}
	return "func(v " + tt + ") any { " + body + " }(" + x + ")"
}

// formatterBehind boxes a, of a compiled interface type t (error,
// fmt.Stringer), in code that hands fmt the Format method of what it
// holds when that is a struct of the session's with one: yaegi's wrapper
// has only t's methods, so fmt called Error or String where Go calls
// Format. (A struct is asserted out of the wrapper whole, keepvalue.go; a
// non-struct value is only its underlying value there.) It reports
// whether it boxed a.
func (r *rewriter) formatterBehind(a ast.Expr, t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.Empty() || !r.ctx.chk.declaresFmtMethods() {
		return false
	}
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: a.Pos()}
	pkgLevel, extra := m.visibleTypes()
	var b strings.Builder
	for _, n := range append(extra, pkgLevel...) {
		if _, isStruct := n.Underlying().(*types.Struct); !isStruct || hasTypeParam(n) {
			continue
		}
		for _, pt := range []types.Type{n, types.NewPointer(n)} {
			if !r.formats(pt) || !types.Implements(pt, it) {
				continue
			}
			tt := r.ctx.typeText(pt, r.subst)
			b.WriteString("if x, ok := v.(" + tt + "); ok { ")
			if _, isPtr := pt.(*types.Pointer); isPtr {
				b.WriteString("if x == nil { return nil }; ")
			}
			b.WriteString("return " + r.ctx.qualify(rtPath) + ".MirrorFormatter(x.Format) }; ")
		}
	}
	if b.Len() == 0 {
		return false
	}
	r.replaceNode(a, "func(v "+r.ctx.typeText(t, r.subst)+") any { "+b.String()+"return v }("+r.nodeText(a)+")")
	return true
}
