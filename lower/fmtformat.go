package lower

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
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
	// A closure, not the method value: yaegi compiles a method value
	// before the method's body when it comes first in the cell (the tag's
	// rebuilder, fmttag.go), and the value then runs nothing.
	body := "return " + m.rt + ".MirrorFormatter(func(s " + m.r.ctx.qualify("fmt") + ".State, c rune) { v.Format(s, c) })"
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

// fmt.Errorf formats a %w operand as %v, by its Format method when it has
// one, and wraps it. yaegi's wrapper of the session's error hands fmt its
// Error only. So formatWrapped prints each %w operand with a Format by
// %v, through a function that also keeps the operand, as an error, in a
// variable (its slot: ʟwN), and rewrapErrorf wraps the slots around the
// call's result (rt.Rewrap): the message is the call's, and
// errors.Unwrap, Is and As find each operand as Go's do.

func init() {
	Runtime[rtPath+"/rt"]["Rewrap"] = reflect.ValueOf(Rewrap)
}

// formatWrapped returns, by operand index, the text that replaces each %w
// operand of n, a call of fmt.Errorf, whose type has a Format method;
// nil when there is none or n cannot be rewritten.
func (r *rewriter) formatWrapped(n *ast.CallExpr, verbs []verb, args []ast.Expr) map[int]string {
	if fn := calledFunc(r.code.info, n); fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" || fn.Name() != "Errorf" {
		return nil
	}
	switch r.parent().(type) {
	case *ast.DeferStmt, *ast.GoStmt:
		return nil // its operands are evaluated at the statement
	}
	var slots map[int]string
	for k, v := range verbs {
		if k >= len(args) || v.verb != 'w' {
			continue
		}
		t := r.typeOf(args[k])
		if t == nil || types.IsInterface(t) || !r.formats(t) || !types.Implements(t, errorType) || r.callsRecover(args[k]) {
			continue
		}
		if slots == nil {
			slots = map[int]string{}
		}
		tt := r.ctx.typeText(t, r.subst)
		kept, ok := r.keptText(t, "v")
		if !ok {
			kept = "v"
		}
		body := ""
		if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
			body = "if v == nil { return nil }; "
		}
		slot := fmt.Sprintf("ʟw%d", len(slots))
		slots[k] = "func(v " + tt + ") any { " + slot + " = " + kept + "; " + body + "return " + r.ctx.qualify(rtPath) + ".MirrorFormatter(v.Format) }(" + r.nodeText(args[k]) + ")"
	}
	return slots
}

// rewrapErrorf wraps n, whose n slots formatWrapped filled, in the code
// that declares them and wraps them around n's result.
func (r *rewriter) rewrapErrorf(n *ast.CallExpr, count int) {
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("ʟw%d", i)
	}
	list := strings.Join(names, ", ")
	r.replaceNode(n, "func() error { var "+list+" error; return "+r.ctx.qualify(rtPath)+".Rewrap("+r.nodeText(n)+", "+list+") }()")
}

// Rewrap is an error with err's message that wraps what err wraps, then
// each of more, as fmt.Errorf's %w does (its *fmt.wrapError for one, its
// *fmt.wrapErrors for several): the message is printed by "%.0w"s, which
// print nothing.
func Rewrap(err error, more ...error) error {
	var wrapped []any
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			wrapped = append(wrapped, e)
		}
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			wrapped = append(wrapped, e)
		}
	}
	for _, e := range more {
		if e != nil {
			wrapped = append(wrapped, e)
		}
	}
	if len(wrapped) == 0 {
		return err
	}
	return fmt.Errorf(strings.ReplaceAll(err.Error(), "%", "%%")+strings.Repeat("%.0w", len(wrapped)), wrapped...)
}
