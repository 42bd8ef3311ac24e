package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/replhost/replhost/internal/fmtmirror"
	"github.com/replhost/replhost/internal/yaegix"
)

// Comparisons of interface values. yaegi v0.16.1 boxes a value whose type
// has methods in a struct of its own (interp.valueInterface: the node the
// value came from and the value) and compares two interface values by
// comparing those boxes, so `var a, b any = u, u; a == b` is false for a
// U16 with methods, and so is `u == a`. ifaceCompare hands every == and !=
// with an interface operand to IfaceEq, which compares what the boxes hold.

func init() {
	Runtime[rtPath+"/rt"]["IfaceEq"] = reflect.ValueOf(IfaceEq)
}

// ifaceCompare rewrites x == y and x != y where x or y is an interface (and
// neither is nil) as rt.IfaceEq(x, y).
func (r *rewriter) ifaceCompare(b *ast.BinaryExpr) {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return
	}
	if tv := r.code.info.Types[b]; tv.Value != nil {
		return
	}
	tx, ty := r.typeOf(b.X), r.typeOf(b.Y)
	if tx == nil || ty == nil || isNilType(tx) || isNilType(ty) {
		return // yaegi compares with nil by itself
	}
	if !types.IsInterface(tx) && !types.IsInterface(ty) {
		r.mixedCompare(b, tx, ty)
		return
	}
	if isTypeParam(tx) || isTypeParam(ty) {
		return // a generic body left as it is
	}
	call := r.ctx.qualify(rtPath) + ".IfaceEq(" + r.ifaceOperand(b.X, tx) + ", " + r.ifaceOperand(b.Y, ty) + ")"
	if b.Op == token.NEQ {
		call = "!" + call
	}
	r.replaceNode(b, call)
}

// mixedCompare converts an operand of == or != to the other's type where
// the two differ but one is assignable to the other (a named array type
// and its literal type, chan T and <-chan T): yaegi v0.16.1 refuses them
// ("mismatched types").
func (r *rewriter) mixedCompare(b *ast.BinaryExpr, tx, ty types.Type) {
	if types.Identical(tx, ty) || isUntyped(tx) || isUntyped(ty) || isTypeParam(tx) || isTypeParam(ty) {
		return
	}
	switch {
	case types.AssignableTo(ty, tx):
		r.replaceNode(b.Y, "("+r.ctx.typeText(tx, r.subst)+")("+r.nodeText(b.Y)+")")
	case types.AssignableTo(tx, ty):
		r.replaceNode(b.X, "("+r.ctx.typeText(ty, r.subst)+")("+r.nodeText(b.X)+")")
	}
}

func isUntyped(t types.Type) bool {
	bt, ok := t.(*types.Basic)
	return ok && bt.Info()&types.IsUntyped != 0
}

func isNilType(t types.Type) bool {
	bt, ok := t.(*types.Basic)
	return ok && bt.Kind() == types.UntypedNil
}

func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

// ifaceOperand is the text of an operand of a comparison for IfaceEq, as it
// is (converted to interface{} first, a nil pointer's dereference became a
// nil interface in yaegi instead of a panic). A dereference is made in a variable first: yaegi hands a nil pointer's
// dereference to a native call as a zero reflect.Value ("Call using zero
// Value argument") where Go panics with a nil pointer dereference.
func (r *rewriter) ifaceOperand(e ast.Expr, t types.Type) string {
	if _, ok := ast.Unparen(e).(*ast.StarExpr); ok {
		return r.namedOperand(t, "func() "+r.ctx.typeText(t, r.subst)+" { ʟd := "+r.nodeText(e)+"; return ʟd }()")
	}
	return r.namedOperand(t, r.nodeText(e)) // fmttagname.go
}

// IfaceEq reports whether two interface values are equal as Go defines it:
// the same dynamic type and equal values (it panics, as == does, when the
// type is not comparable). yaegi's boxes are opened first (yaegix.Unbox).
func IfaceEq(a, b any) bool {
	ta, va := yaegix.Unbox(a)
	tb, vb := yaegix.Unbox(b)
	// yaegi's wrapper of a value converted to a compiled interface
	// (error) holds func fields: == of two panicked. What it holds is
	// compared (errorsfuncs.go: a struct there is only its last field).
	if inner, ok := yaegix.IfaceWrapped(va); ok {
		va = inner
	}
	if inner, ok := yaegix.IfaceWrapped(vb); ok {
		vb = inner
	}
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	if va.Type() != vb.Type() {
		return false
	}
	if ta.Known && tb.Known && ta.ID != tb.ID {
		return false // two interpreted types of one representation
	}
	if !fmtmirror.SameRecordedType(a, b) {
		return false // Celsius(2) and 2.0, both float64 to yaegi (fmttagname.go)
	}
	// yaegi boxes a value of a type with methods only on some paths (a
	// variable of a declared interface type holds it bare), so a box
	// against a bare value says nothing of their types.
	return va.Interface() == vb.Interface()
}

// ifaceSwitch rewrites an expression switch that compares an interface
// with its cases (`switch x { case "a": }` with x an interface, or a case
// that is one) into a switch of bool cases over IfaceEq: yaegi compares
// the boxes there too, or panics converting the case to the tag's type. A
// case of another type than the tag's (`case ch2:` of type <-chan T with a
// chan T tag), which yaegi never matched, becomes an == of its own.
// The tag is evaluated once, into a variable of the switch, as Go does.
func (r *rewriter) ifaceSwitch(s *ast.SwitchStmt) {
	if s.Tag == nil {
		r.ifaceCasesOfTrue(s)
		return
	}
	tt := r.typeOf(s.Tag)
	if tt == nil || isTypeParam(tt) {
		return
	}
	iface, cases := false, 0
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			t := r.typeOf(e)
			if t == nil || isTypeParam(t) {
				return
			}
			cases++
			switch {
			case isNilType(t):
				// yaegi matches a nil case of a slice, map or func tag never
				iface = iface || !types.IsInterface(tt)
			case types.IsInterface(tt) || types.IsInterface(t) || !types.Identical(tt, t):
				iface = true // or a case of another type (a chan <-chan T of a chan T tag)
			}
		}
	}
	if !iface || cases == 0 {
		return
	}
	tag := r.nodeText(s.Tag)
	if s.Init == nil {
		name := r.ctx.name("tag")
		r.replaceNode(s.Tag, name+" := "+tag+";")
		tag = name
	} else if !sideEffectFree(s.Tag) {
		return // evaluated once per case: only a tag without calls
	} else {
		r.replaceNode(s.Tag, "")
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		var cmps []string
		for _, e := range cc.List {
			t := r.typeOf(e)
			switch {
			case isNilType(t):
				cmps = append(cmps, tag+" == nil")
			case types.IsInterface(tt) || types.IsInterface(t):
				cmps = append(cmps, r.ctx.qualify(rtPath)+".IfaceEq("+r.namedOperand(tt, tag)+", "+r.namedOperand(t, r.nodeText(e))+")")
			case types.Identical(tt, t):
				cmps = append(cmps, tag+" == "+r.nodeText(e))
			case types.AssignableTo(t, tt):
				cmps = append(cmps, tag+" == ("+r.ctx.typeText(tt, r.subst)+")("+r.nodeText(e)+")")
			default: // yaegi compares only operands of one type
				cmps = append(cmps, "("+r.ctx.typeText(t, r.subst)+")("+tag+") == "+r.nodeText(e))
			}
		}
		if len(cmps) > 0 {
			// One expression: see taglessCases.
			r.replace(r.off(cc.List[0].Pos()), r.off(cc.List[len(cc.List)-1].End()), strings.Join(cmps, " || "))
		}
	}
}

// sideEffectFree reports an expression of names, selectors, literals and
// operators only: evaluating it again gives the same value.
func sideEffectFree(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.FuncLit, *ast.CompositeLit, *ast.IndexExpr, *ast.StarExpr, *ast.TypeAssertExpr:
			ok = false
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW
		}
		return ok
	})
	return ok
}

// ifaceCasesOfTrue rewrites the cases of interface type in a switch without
// a tag (`switch { case i: }`, which compares true == i).
func (r *rewriter) ifaceCasesOfTrue(s *ast.SwitchStmt) {
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if t := r.typeOf(e); t != nil && types.IsInterface(t) && !isTypeParam(t) {
				r.replaceNode(e, r.ctx.qualify(rtPath)+".IfaceEq(interface{}(true), "+r.nodeText(e)+")")
			}
		}
	}
}
