package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// %#v prints Go syntax with the operand's type names. yaegi hands fmt a
// value of the session's types as its underlying type with unexported
// fields renamed (`struct { X int; Xy string }{X:1, Xy:"a"}` for Go's
// `main.P{X:1, y:"a"}`, `[]int{0}` for `[]main.Color{0}`), so an operand
// that mentions them is rebuilt from its static type out of fmtmirror's
// Go* stand-ins, each named as reflect names the type in a Go program.

func init() {
	rt := Runtime[rtPath+"/rt"]
	rt["GoStruct"] = reflect.ValueOf(fmtmirror.NewGoStruct)
	rt["GoList"] = reflect.ValueOf(fmtmirror.NewGoList)
	rt["GoPtr"] = reflect.ValueOf(fmtmirror.NewGoPtr)
	rt["GoAddr"] = reflect.ValueOf(fmtmirror.NewGoAddr)
	rt["GoText"] = reflect.ValueOf(fmtmirror.NewGoText)
}

// boxGoSyntax replaces operand a of type t, printed with %#v, by its
// rebuilt value when it needs one, and reports whether it did.
func (r *rewriter) boxGoSyntax(a ast.Expr, t types.Type) bool {
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: a.Pos(), syntax: true}
	if !m.needsSyntax(t, 0) {
		return false
	}
	m.rt = r.ctx.qualify(rtPath)
	text := m.genSyntax(t, "("+r.nodeText(a)+")", 0)
	if m.conv != "" && m.conv != "nil" {
		text = "func(" + m.conv + " func(any) any) any { return " + text + " }(" + m.convText() + ")"
	}
	if len(text) > maxMirrorText {
		return false
	}
	r.replaceNode(a, text)
	return true
}

// goStringer reports whether a value of type t has a GoString method of
// the session's, which %#v calls.
func (m *mirror) goStringer(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, false, m.r.ctx.chk.pkg, "GoString")
	f, ok := obj.(*types.Func)
	if !ok || !m.r.ctx.chk.local(f.Pkg()) {
		return false
	}
	sig := f.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
}

// needsSyntax reports whether a value of type t at depth prints other than
// Go prints it with %#v.
func (m *mirror) needsSyntax(t types.Type, depth int) bool {
	if depth > maxMirrorDepth || t == nil {
		return false
	}
	t = substType(t, m.r.subst)
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	if m.goStringer(t) || m.r.formats(t) {
		return true
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if !m.session(n) {
			return false // a compiled type prints as Go prints it
		}
		if _, basic := n.Underlying().(*types.Basic); basic {
			return false // %#v prints the value only: 1, "x", true
		}
		return !types.IsInterface(n) || depth > 0 || m.convName(false) != "nil"
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		// What it holds may be yaegi's wrapper (below the top), or a value
		// of the session's types, printed with yaegi's type names.
		return depth > 0 || m.convName(false) != "nil"
	case *types.Struct:
		return true // yaegi renames unexported fields
	case *types.Pointer:
		return m.r.mentionsCellType(t) || m.needsSyntax(u.Elem(), depth+1)
	case *types.Slice:
		if b, ok := u.Elem().(*types.Basic); ok && b.Kind() == types.Byte && depth > 0 {
			return true // fmt names a []byte []uint8 below the top only
		}
		return m.r.mentionsCellType(t) || m.needsSyntax(u.Elem(), depth+1)
	case *types.Array:
		return m.r.mentionsCellType(t) || m.needsSyntax(u.Elem(), depth+1)
	case *types.Map:
		return m.r.mentionsCellType(t) || m.needsSyntax(u.Key(), depth+1) || m.needsSyntax(u.Elem(), depth+1)
	case *types.Chan:
		return m.r.mentionsCellType(t)
	}
	return false
}

// genSyntax returns code that turns x, of type t at depth, into a native
// value that prints as Go prints x with %#v.
func (m *mirror) genSyntax(t types.Type, x string, depth int) string {
	t = substType(t, m.r.subst)
	if !m.needsSyntax(t, depth) {
		return m.rt + ".MirrorValue(" + x + ")"
	}
	tt := m.r.ctx.typeText(t, m.r.subst)
	name := strconv.Quote(m.reflectName(t))
	fn := func(body string) string { return "func(v " + tt + ") any { " + body + " }(" + x + ")" }
	_, isPtr := t.Underlying().(*types.Pointer)
	if m.r.formats(t) {
		return m.genFormatter(t, tt, x) // Format before GoString, as in fmt
	}
	if m.goStringer(t) {
		if isPtr {
			return fn("if v == nil { return " + m.rt + ".GoAddr(" + name + ", nil) }; return " + m.rt + ".GoText(v.GoString())")
		}
		return fn("return " + m.rt + ".GoText(v.GoString())")
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		null := m.rt + ".GoAddr(" + name + ", nil)"
		if depth == 0 {
			null = "nil" // fmt prints a nil operand <nil>
		}
		return fn("if v == nil { return " + null + " }; return " + m.rt +
			".MirrorDynamic(any(v), " + strconv.Itoa(depth) + ", " + strconv.Itoa(fmtmirror.Syntax) + ", " + m.convName(false) + ")")
	case *types.Struct:
		names := make([]string, u.NumFields())
		var vals strings.Builder
		for i := range u.NumFields() {
			f := u.Field(i)
			names[i] = f.Name()
			vals.WriteString(", " + m.genSyntax(f.Type(), "v."+f.Name(), depth+1))
		}
		return fn("return " + m.rt + ".GoStruct(" + name + ", \"" + strings.Join(names, ",") + "\"" + vals.String() + ")")
	case *types.Pointer:
		switch u.Elem().Underlying().(type) {
		case *types.Struct, *types.Array, *types.Slice, *types.Map:
			if depth == 0 {
				return fn("if v == nil { return " + m.rt + ".GoAddr(" + name + ", nil) }; return " + m.rt + ".GoPtr(" + m.genSyntax(u.Elem(), "(*v)", depth+1) + ")")
			}
		}
		return m.rt + ".GoAddr(" + name + ", " + x + ")"
	case *types.Slice:
		return fn("if v == nil { return " + m.rt + ".GoAddr(" + name + ", nil) }; out := " + m.rt + ".GoList(" + name +
			", len(v)); for i := range v { out.Set(i, " + m.genSyntax(u.Elem(), "v[i]", depth+1) + ") }; return out.Value()")
	case *types.Array:
		return fn("out := " + m.rt + ".GoList(" + name + ", len(v)); for i := range v { out.Set(i, " +
			m.genSyntax(u.Elem(), "v[i]", depth+1) + ") }; return out.Value()")
	case *types.Map:
		return fn("if v == nil { return " + m.rt + ".GoAddr(" + name + ", nil) }; out := " + m.rt + ".MirrorMapBuilder(); for k, e := range v { out.Add(k, " +
			m.genSyntax(u.Key(), "k", depth+1) + ", " + m.genSyntax(u.Elem(), "e", depth+1) + ") }; return out.GoMap(" + name + ")")
	case *types.Chan, *types.Signature:
		return m.rt + ".GoAddr(" + name + ", " + x + ")"
	}
	return m.rt + ".MirrorValue(" + x + ")"
}

// reflectName is how reflect (and so %#v) names t in a Go program: the
// session's package is main, `struct { X int }`, `interface {}`, type
// arguments without spaces.
func (m *mirror) reflectName(t types.Type) string {
	var b strings.Builder
	m.writeReflectName(&b, substType(t, m.r.subst))
	return b.String()
}

func (m *mirror) writeReflectName(b *strings.Builder, t types.Type) {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.Byte:
			b.WriteString("uint8")
		case types.Rune:
			b.WriteString("int32")
		default:
			b.WriteString(types.Default(t).String())
		}
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil {
			if m.r.ctx.chk.local(p) {
				b.WriteString("main.")
			} else {
				b.WriteString(p.Name() + ".")
			}
		}
		b.WriteString(t.Obj().Name())
		if args := t.TypeArgs(); args.Len() > 0 {
			b.WriteString("[")
			for i := range args.Len() {
				if i > 0 {
					b.WriteString(",")
				}
				m.writeReflectName(b, substType(args.At(i), m.r.subst))
			}
			b.WriteString("]")
		}
	case *types.Pointer:
		b.WriteString("*")
		m.writeReflectName(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		m.writeReflectName(b, t.Elem())
	case *types.Array:
		b.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		m.writeReflectName(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		m.writeReflectName(b, t.Key())
		b.WriteString("]")
		m.writeReflectName(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		default:
			b.WriteString("chan ")
		}
		m.writeReflectName(b, t.Elem())
	case *types.Struct:
		if t.NumFields() == 0 {
			b.WriteString("struct {}")
			return
		}
		b.WriteString("struct {")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" ")
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			m.writeReflectName(b, f.Type())
			if tag := t.Tag(i); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString(" }")
	case *types.Interface:
		if t.NumMethods() == 0 {
			b.WriteString("interface {}")
			return
		}
		b.WriteString("interface {")
		for i := range t.NumMethods() {
			if i > 0 {
				b.WriteString(";")
			}
			f := t.Method(i)
			b.WriteString(" " + f.Name())
			m.writeSignature(b, f.Type().(*types.Signature))
		}
		b.WriteString(" }")
	case *types.Signature:
		b.WriteString("func")
		m.writeSignature(b, t)
	default:
		b.WriteString(t.String())
	}
}

// writeSignature writes (params) results as reflect does.
func (m *mirror) writeSignature(b *strings.Builder, sig *types.Signature) {
	b.WriteString("(")
	for i := range sig.Params().Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		p := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("...")
			p = p.(*types.Slice).Elem()
		}
		m.writeReflectName(b, p)
	}
	b.WriteString(")")
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" ")
		m.writeReflectName(b, res.At(0).Type())
	default:
		b.WriteString(" (")
		for i := range res.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			m.writeReflectName(b, res.At(i).Type())
		}
		b.WriteString(")")
	}
}
