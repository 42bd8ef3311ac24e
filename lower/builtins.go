package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// builtinCall lowers min, max and clear, which yaegi does not know.
// A constant min or max becomes its value; otherwise min and max call a
// helper for their operand type (floats follow Go's NaN and signed-zero
// rules), and clear goes through reflect.Value.Clear (which also removes
// NaN keys).
func (r *rewriter) builtinCall(n *ast.CallExpr) {
	id, ok := ast.Unparen(n.Fun).(*ast.Ident)
	if !ok {
		return
	}
	b, ok := r.code.info.Uses[id].(*types.Builtin)
	if !ok {
		return
	}
	switch b.Name() {
	case "min", "max":
		if tv := r.code.info.Types[n]; tv.Value != nil {
			r.replaceNode(n, r.constText(tv))
			return
		}
		r.replaceNode(id, r.ctx.minMaxHelper(b.Name(), r.typeOf(n)))
	case "clear":
		if len(n.Args) == 1 {
			r.replaceNode(n, r.ctx.qualify("reflect")+".ValueOf("+r.nodeText(n.Args[0])+").Clear()")
		}
	case "print", "println":
		r.builtinPrint(n, b.Name() == "println")
	case "recover":
		// yaegi's own reflect panics (an index out of range) are strings,
		// where Go's are runtime.Error values.
		r.replaceNode(n, r.ctx.qualify(rtPath)+".Recovered("+r.nodeText(n)+")")
	case "new":
		// new(expr), Go 1.26: a pointer to a fresh variable holding expr.
		if len(n.Args) == 1 && !r.code.info.Types[n.Args[0]].IsType() {
			if p, ok := r.typeOf(n).(*types.Pointer); ok {
				r.replaceNode(n, "&[]"+r.ctx.typeText(p.Elem(), r.subst)+"{"+r.nodeText(n.Args[0])+"}[0]")
			}
		}
	case "len", "cap":
		// Constant when go/types says so: of an array pointer, nil or not,
		// which yaegi v0.16.1 reads through reflect and fails on nil.
		if tv := r.code.info.Types[n]; tv.Value != nil && len(n.Args) == 1 {
			if _, ok := arrayLen(r.typeOf(n.Args[0])); ok {
				r.replaceNode(n, r.constText(tv)) // also of *p, p a nil array pointer
			}
			return
		}
		// Of an array or array pointer, the length is the type's even
		// where go/types does not see a constant (a type parameter's
		// argument, an operand that calls or receives, evaluated first).
		if len(n.Args) == 1 && r.code.info.Types[n].Value == nil {
			if size, ok := arrayLen(r.typeOf(n.Args[0])); ok {
				v := r.ctx.name("x")
				r.replaceNode(n, "func() int { "+v+" := "+r.nodeText(n.Args[0])+"; _ = "+v+"; return "+strconv.FormatInt(size, 10)+" }()")
			}
		}
	}
}

// arrayLen returns the length of an array type or of the array a pointer
// type points to.
func arrayLen(t types.Type) (int64, bool) {
	if t == nil {
		return 0, false
	}
	u := t.Underlying()
	if p, ok := u.(*types.Pointer); ok {
		u = p.Elem().Underlying()
	}
	a, ok := u.(*types.Array)
	if !ok {
		return 0, false
	}
	return a.Len(), true
}

// isArrayPtr reports whether t is a pointer to an array.
func isArrayPtr(t types.Type) bool {
	if t == nil {
		return false
	}
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = p.Elem().Underlying().(*types.Array)
	return ok
}

// rangeArrayPtr lowers a range over an array or array pointer that reads
// no element, which Go allows on a nil pointer and yaegi v0.16.1 does not,
// to a range over an array of the same length; the range expression is
// evaluated first only where Go does (it calls or receives).
func (r *rewriter) rangeArrayPtr(n *ast.RangeStmt) {
	if n.Value != nil {
		if id, ok := n.Value.(*ast.Ident); !ok || id.Name != "_" {
			return
		}
	}
	size, ok := arrayLen(r.typeOf(n.X))
	if !ok {
		return
	}
	tv := r.code.info.Types[n.X]
	arr := "[" + strconv.FormatInt(size, 10) + "]struct{}"
	if !callsOrReceives(n.X) || tv.Value != nil {
		// len(x) is constant: Go does not evaluate x (nil or not).
		if _, isArr := r.typeOf(n.X).Underlying().(*types.Array); isArr && isPlainName(n.X) {
			return // a plain array: yaegi ranges over it well
		}
		r.replaceNode(n.X, arr+"{}")
		return
	}
	// x calls or receives: evaluated (a nil *p panics), then its length.
	v := r.ctx.name("x")
	r.replaceNode(n.X, "func() "+arr+" { "+v+" := "+r.nodeText(n.X)+"; _ = "+v+"; return "+arr+"{} }()")
}

// isPlainName is an identifier or a selector of identifiers.
func isPlainName(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return isPlainName(e.X)
	}
	return false
}

// builtinPrint lowers print and println, which yaegi writes to stdout in
// fmt's format, to the runtime's format on the code's stderr, as Go does.
// The call keeps its shape, `rt.Printer(os.Stderr, ln, kinds)(args...)`, so
// that defer and go statements around it stay as they are. kinds carries
// the static type of each operand (an interface prints as a pair of words,
// the untyped nil as nil).
func (r *rewriter) builtinPrint(n *ast.CallExpr, ln bool) {
	kinds := make([]byte, len(n.Args))
	for i, a := range n.Args {
		kinds[i] = '.'
		tv := r.code.info.Types[a]
		switch {
		case tv.IsNil():
			kinds[i] = 'n'
		case tv.Type != nil && types.IsInterface(r.concrete(tv.Type)):
			kinds[i] = 'i'
		}
		if tv.Value != nil && tv.Type != nil {
			if bt, ok := tv.Type.(*types.Basic); ok && bt.Info()&types.IsUntyped != 0 {
				// An untyped constant takes its default type, as in Go.
				r.replaceNode(a, r.ctx.typeExprText(types.Default(bt), nil)+"("+r.nodeText(a)+")")
			}
		}
	}
	r.replaceNode(n.Fun, r.ctx.qualify(rtPath)+".Printer("+r.ctx.qualify("os")+".Stderr, "+strconv.FormatBool(ln)+", "+
		strconv.Quote(string(kinds))+")")
}

// constText writes a constant as source of the same type (an untyped
// constant stays untyped of the same kind).
func (r *rewriter) constText(tv types.TypeAndValue) string {
	v := tv.Value
	var lit string
	switch v.Kind() {
	case constant.String:
		lit = strconv.Quote(constant.StringVal(v))
	case constant.Int:
		lit = v.ExactString()
		if bt, ok := tv.Type.(*types.Basic); ok && bt.Kind() == types.UntypedRune {
			if i, ok := constant.Int64Val(v); ok {
				return strconv.QuoteRune(rune(i))
			}
		}
	case constant.Float:
		f, _ := constant.Float64Val(v)
		lit = strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(lit, ".eEn") {
			lit += ".0"
		}
	default:
		lit = v.ExactString()
	}
	if bt, ok := tv.Type.(*types.Basic); ok && bt.Info()&types.IsUntyped != 0 {
		return lit
	}
	return r.ctx.typeExprText(r.concrete(tv.Type), r.subst) + "(" + lit + ")"
}

// minMaxHelper declares (once) and names the helper computing op over
// operands of type t.
func (ctx *lowerCtx) minMaxHelper(op string, t types.Type) string {
	tt := ctx.typeText(t, nil)
	name := "ʟ" + op + "_" + mangle(tt)
	ctx.declare(name, func() string {
		cmp := "<"
		if op == "max" {
			cmp = ">"
		}
		var body string
		if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 {
			zero := "1/y < 0" // min prefers -0
			if op == "max" {
				zero = "1/x < 0" // max prefers +0
			}
			body = "\tfor _, y := range ys {\n\t\tif x != x {\n\t\t\treturn x\n\t\t}\n\t\tif y != y || y " + cmp + " x || y == x && y == 0 && " + zero + " {\n\t\t\tx = y\n\t\t}\n\t}\n"
		} else {
			body = "\tfor _, y := range ys {\n\t\tif y " + cmp + " x {\n\t\t\tx = y\n\t\t}\n\t}\n"
		}
		return "func " + name + "(x " + tt + ", ys ..." + tt + ") " + tt + " {\n" + body + "\treturn x\n}"
	})
	return name
}

// constNegZero writes the value of a constant negation of a float zero
// (`-zero`, `-float64(zero)`): constants have no negative zero, and yaegi
// v0.16.1 negates at run time, giving -0.
func (r *rewriter) constNegZero(n *ast.UnaryExpr) {
	if n.Op != token.SUB {
		return
	}
	tv := r.code.info.Types[n]
	if tv.Value == nil || tv.Value.Kind() != constant.Float || constant.Sign(tv.Value) != 0 {
		return
	}
	r.replaceNode(n, r.constText(tv))
}

// constCase writes the integer value of a constant case expression that
// is not spelled as one (`case 1e19:` of a uint64 switch), which yaegi
// v0.16.1 takes as a float or an int64.
func (r *rewriter) constCase(cc *ast.CaseClause) {
	for _, e := range cc.List {
		tv := r.code.info.Types[e]
		if tv.Value == nil || tv.Value.Kind() != constant.Int {
			continue
		}
		if bl, ok := e.(*ast.BasicLit); ok && bl.Kind == token.INT || isPlainName(e) {
			continue
		}
		bt, ok := r.concrete(tv.Type).Underlying().(*types.Basic)
		if !ok || bt.Info()&types.IsInteger == 0 {
			continue
		}
		r.replaceNode(e, r.constText(tv))
	}
}

// callsBuiltin reports whether n calls the predeclared function name (not
// a declaration that shadows it).
func (r *rewriter) callsBuiltin(n *ast.CallExpr, name string) bool {
	id, ok := ast.Unparen(n.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := r.code.info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}
