package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// bigConst writes the value of a constant expression that involves an
// integer constant beyond int64 (`1 << 100`, `chuge - 1`, `1 << 63` of a
// uint64): yaegi v0.16.1 computes constant expressions in int64 and stops
// ("constant 9223372036854775808 overflows int64"). Go computes them
// exactly; the lowering writes the result: an integer of its type, a float
// literal for a float (the nearest float64, as Go rounds), the bool of a
// comparison. An untyped integer constant declared beyond int64 is
// declared as a float literal: its uses are all written as values.
func (r *rewriter) bigConst(n ast.Node) {
	e, ok := n.(ast.Expr)
	if !ok {
		return
	}
	tv, ok := r.code.info.Types[e]
	if !ok || tv.Value == nil || tv.IsType() {
		return
	}
	if p, ok := r.parent().(ast.Expr); ok {
		if ptv, ok := r.code.info.Types[p]; ok && ptv.Value != nil && !ptv.IsType() {
			return // the enclosing constant expression is written whole
		}
	}
	if !r.involvesBigInt(e) && !r.involvesComplex(e) {
		return
	}
	if sh, ok := r.parent().(*ast.BinaryExpr); ok && (sh.Op == token.SHL || sh.Op == token.SHR) && sh.Y == e {
		return // a shift count: yaegi takes a wide one as it is
	}
	if bl, ok := e.(*ast.BasicLit); ok && bl.Kind == token.INT && tv.Type != nil && isTypedInteger(tv.Type) {
		return // a literal yaegi reads in its type
	}
	if b, ok := r.concrete(tv.Type).Underlying().(*types.Basic); ok && b.Info()&types.IsComplex != 0 && b.Info()&types.IsUntyped == 0 && r.inConstDecl() {
		return // yaegi refuses a typed complex constant written as a literal
	}
	text, ok := r.bigConstText(tv)
	if ok {
		r.replaceNode(e, text)
	}
}

func (r *rewriter) inConstDecl() bool {
	for _, n := range r.stack {
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
			return true
		}
	}
	return false
}

// involvesBigInt reports whether e or a constant inside it is an integer
// beyond int64.
func (r *rewriter) involvesBigInt(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		if xe, ok := x.(ast.Expr); ok {
			if tv, ok := r.code.info.Types[xe]; ok && tv.Value != nil && tv.Value.Kind() == constant.Int {
				if _, exact := constant.Int64Val(tv.Value); !exact {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// involvesComplex reports whether e is or holds a complex constant or a
// constant real, imag or complex call: yaegi v0.16.1 computes those with
// the wrong kinds ("call of reflect.Value.Complex on int64 Value").
func (r *rewriter) involvesComplex(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		if e, ok := x.(ast.Expr); ok {
			if tv, ok := r.code.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Complex {
				found = true
			}
		}
		if c, ok := x.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok {
				if b, ok := r.code.info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "real", "imag", "complex":
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func isTypedInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0 && b.Info()&types.IsUntyped == 0
}

// bigConstText is the source of a constant value in its type, exact where
// the type does not round it: an integer literal for an integral value
// (yaegi reads a wide one in a declaration or a conversion), the ratio of
// two of them for an untyped fraction, the nearest float64 for a typed
// float (its type rounds it anyway).
func (r *rewriter) bigConstText(tv types.TypeAndValue) (string, bool) {
	b, ok := r.concrete(tv.Type).Underlying().(*types.Basic)
	if !ok {
		return "", false
	}
	untyped := b.Info()&types.IsUntyped != 0
	wrap := func(lit string) string {
		if untyped {
			return lit
		}
		return r.ctx.typeExprText(r.concrete(tv.Type), r.subst) + "(" + lit + ")"
	}
	v := tv.Value
	switch {
	case v.Kind() == constant.Bool:
		return wrap(strconv.FormatBool(constant.BoolVal(v))), true
	case b.Info()&types.IsComplex != 0:
		re, ok1 := realLit(constant.Real(v), untyped)
		im, ok2 := realLit(constant.Imag(v), false) // an imaginary literal is one number
		if !ok1 || !ok2 {
			return "", false
		}
		return wrap("(" + re + " + " + im + "i)"), true
	case b.Info()&types.IsFloat != 0:
		lit, ok := realLit(v, untyped)
		return wrap(lit), ok
	case v.Kind() == constant.Int:
		return wrap(v.ExactString()), true
	}
	return "", false
}

// realLit writes a real constant as a float literal: exact when untyped
// (an integer, or the ratio of two), else the nearest float64.
func realLit(v constant.Value, untyped bool) (string, bool) {
	if i := constant.ToInt(v); i.Kind() == constant.Int {
		return i.ExactString() + ".0", true
	}
	if !untyped {
		return floatLit(v)
	}
	num, den := constant.Num(constant.ToFloat(v)), constant.Denom(constant.ToFloat(v))
	if num.Kind() != constant.Int || den.Kind() != constant.Int {
		return floatLit(v)
	}
	return "(" + num.ExactString() + ".0 / " + den.ExactString() + ".0)", true
}

// floatLit writes a constant as a float literal (the nearest float64).
func floatLit(v constant.Value) (string, bool) {
	f, _ := constant.Float64Val(constant.ToFloat(v))
	lit := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(lit, "nI") {
		return "", false // beyond float64: Go refuses it too
	}
	if !strings.ContainsAny(lit, ".eE") {
		lit += ".0"
	}
	return lit, true
}
