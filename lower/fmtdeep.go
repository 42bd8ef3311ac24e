package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// Values of the session's types below the top of an fmt operand (struct
// fields, elements, map keys and values, what an interface holds) reach
// fmt without their String and Error methods, with unexported fields
// renamed and with interface fields as yaegi's internal wrappers. boxDeep
// rebuilds such an operand, from its static type, out of the native values
// of internal/fmtmirror, each part formatted by its own method where Go's
// fmt would call it (not below an unexported field, as in Go).

func init() {
	rt := Runtime[rtPath+"/rt"]
	rt["MirrorStruct"] = reflect.ValueOf(fmtmirror.NewStruct)
	rt["MirrorPtr"] = reflect.ValueOf(fmtmirror.NewPtr)
	rt["MirrorList"] = reflect.ValueOf(fmtmirror.NewList)
	rt["MirrorMapBuilder"] = reflect.ValueOf(fmtmirror.NewMapBuilder)
	rt["MirrorValue"] = reflect.ValueOf(fmtmirror.Value)
}

const (
	// maxMirrorDepth bounds how deep a value is rebuilt; below it values
	// are handed over as they are.
	maxMirrorDepth = 6
	// maxMirrorText bounds the code of one rebuilt operand.
	maxMirrorText = 32 << 10
	// maxMirrorCandidates bounds the session types an interface value is
	// tried as.
	maxMirrorCandidates = 16
)

// mirror is one rebuild. show says it is for the REPL's display, where
// pointers below the top are shown as &{...} too (fmt prints an address).
type mirror struct {
	r    *rewriter
	rt   string
	show bool
	path map[*types.Named]int // named types being rebuilt: recursion
}

// boxDeep replaces operand a of type t by its rebuilt value when it needs
// one, and reports whether it did.
func (r *rewriter) boxDeep(a ast.Expr, t types.Type, show bool) bool {
	m := &mirror{r: r, show: show, path: map[*types.Named]int{}}
	if !m.needs(t, 0, false) {
		return false
	}
	m.rt = r.ctx.qualify(rtPath) // adds the import: only when used
	text := m.gen(t, "("+r.nodeText(a)+")", 0, false)
	if len(text) > maxMirrorText {
		return false
	}
	r.replaceNode(a, text)
	return true
}

// hasMethod reports whether fmt calls a String or Error method of the
// session on a value of type t.
func (m *mirror) hasMethod(t types.Type) bool {
	return fmtIface(t) && !types.IsInterface(t) && m.r.mentionsCellType(t)
}

// session reports whether t is the session's (or an unnamed type).
func (m *mirror) session(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return !ok || n.Obj().Pkg() == nil || m.r.ctx.chk.local(n.Obj().Pkg())
}

// needs reports whether a value of type t at depth prints wrong as it is;
// bare says it is below an unexported field, where no method is called.
func (m *mirror) needs(t types.Type, depth int, bare bool) bool {
	if depth > maxMirrorDepth || t == nil {
		return false
	}
	t = substType(t, m.r.subst) // in an instance of a generic function
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	if !bare && m.hasMethod(t) {
		return true
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if n.Obj().Pkg() == nil && n.Obj().Name() == "error" {
			return false // yaegi hands fmt an error with its method
		}
		if !m.session(n) || m.path[n] > 0 {
			return false
		}
		m.path[n]++
		defer func() { m.path[n]-- }()
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return depth > 0 && !fmtIface(t) || depth == 0 && m.r.ctx.chk.declaresFmtMethods()
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() || m.needs(f.Type(), depth+1, bare) {
				return true
			}
		}
	case *types.Pointer:
		if depth > 0 && !m.show {
			return false // fmt prints the address
		}
		switch u.Elem().Underlying().(type) {
		case *types.Struct, *types.Array, *types.Slice, *types.Map:
			return m.needs(u.Elem(), depth+1, bare)
		}
	case *types.Slice:
		return m.needs(u.Elem(), depth+1, bare)
	case *types.Array:
		return m.needs(u.Elem(), depth+1, bare)
	case *types.Map:
		return m.needs(u.Key(), depth+1, bare) || m.needs(u.Elem(), depth+1, bare)
	}
	return false
}

// gen returns code that turns x, of type t at depth, into a native value
// that prints as Go prints x.
func (m *mirror) gen(t types.Type, x string, depth int, bare bool) string {
	t = substType(t, m.r.subst)
	if !m.needs(t, depth, bare) {
		return m.rt + ".MirrorValue(" + x + ")"
	}
	tt := m.r.ctx.typeText(t, m.r.subst)
	if !bare && m.hasMethod(t) {
		conv := m.rt + ".Stringer(v.String())"
		if types.Implements(t, errorType) {
			conv = m.rt + ".Errorer(v.Error())"
		}
		if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
			conv = "if v == nil { return nil }; return " + conv
		} else {
			conv = "return " + conv
		}
		return "func(v " + tt + ") any { " + conv + " }(" + x + ")"
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		m.path[n]++
		defer func() { m.path[n]-- }()
	}
	if iface, ok := t.Underlying().(*types.Interface); ok && iface.Empty() && depth > 0 {
		// Handed over as it is, which unwraps it: yaegi v0.16.1 fails
		// (reflect panics) on assertions of a value an []any holds.
		return m.rt + ".MirrorValue(" + x + ")"
	}
	var b strings.Builder
	b.WriteString("func(v " + tt + ") any { ")
	switch u := t.Underlying().(type) {
	case *types.Interface:
		b.WriteString("if v == nil { return nil }; ")
		if !bare {
			b.WriteString("if x, ok := v.(interface{ Error() string }); ok { return " + m.rt + ".Errorer(x.Error()) }; ")
			b.WriteString("if x, ok := v.(interface{ String() string }); ok { return " + m.rt + ".Stringer(x.String()) }; ")
		}
		inner := depth
		if depth > 0 {
			inner++
		}
		for _, c := range m.candidates(t, inner, bare) {
			b.WriteString("if x, ok := v.(" + m.r.ctx.typeText(c, m.r.subst) + "); ok { return " + m.gen(c, "x", inner, bare) + " }; ")
		}
		b.WriteString("return v") // rt.MirrorValue(v) here fails in reflect.Set
	case *types.Struct:
		names := make([]string, u.NumFields())
		vals := make([]string, u.NumFields())
		for i := range u.NumFields() {
			f := u.Field(i)
			names[i] = f.Name()
			vals[i] = m.gen(f.Type(), "v."+f.Name(), depth+1, bare || !f.Exported())
		}
		b.WriteString("return " + m.rt + ".MirrorStruct(\"" + strings.Join(names, ",") + "\"")
		for _, v := range vals {
			b.WriteString(", " + v)
		}
		b.WriteString(")")
	case *types.Pointer:
		b.WriteString("if v == nil { return " + m.rt + ".MirrorValue(v) }; return " + m.rt + ".MirrorPtr(" + m.gen(u.Elem(), "(*v)", depth+1, bare) + ")")
	case *types.Slice, *types.Array:
		elem := u.(interface{ Elem() types.Type }).Elem()
		b.WriteString("out := " + m.rt + ".MirrorList(len(v)); for i := range v { out.Set(i, " + m.gen(elem, "v[i]", depth+1, bare) + ") }; return out.Slice()")
	case *types.Map:
		add := "Add"
		if m.needs(u.Key(), depth+1, bare) {
			add = "AddMirrored"
		}
		b.WriteString("out := " + m.rt + ".MirrorMapBuilder(); for k, e := range v { out." + add + "(k, " + m.gen(u.Key(), "k", depth+1, bare) + ", " +
			m.gen(u.Elem(), "e", depth+1, bare) + ") }; return out.Map()")
	default:
		b.WriteString("return " + m.rt + ".MirrorValue(v)")
	}
	b.WriteString(" }(" + x + ")")
	return b.String()
}

// candidates are the session's types, in scope for the cell, that a value
// of interface type t may hold and that need rebuilding.
func (m *mirror) candidates(t types.Type, depth int, bare bool) []types.Type {
	iface, _ := t.Underlying().(*types.Interface)
	scope := m.r.ctx.chk.scope()
	var out []types.Type
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || types.IsInterface(n) || !types.Implements(n, iface) {
			continue
		}
		if !m.needs(n, depth, bare) || (!bare && m.hasMethod(n)) {
			continue // a method is found by the assertions above
		}
		if out = append(out, n); len(out) == maxMirrorCandidates {
			break
		}
	}
	return out
}

// showExpr rebuilds the value of a top-level expression statement, which
// the REPL shows, when its parts print wrong as they are. Values with a
// method of their own, interfaces, constants and tuples are left to the
// sandbox, which shows them through their methods.
func (r *rewriter) showExpr(st ast.Stmt) {
	es, ok := st.(*ast.ExprStmt)
	if !ok || r.wrapped {
		return
	}
	tv, ok := r.code.info.Types[es.X]
	if !ok || tv.Type == nil || tv.Value != nil || types.IsInterface(tv.Type) {
		return
	}
	if _, tuple := tv.Type.(*types.Tuple); tuple {
		return
	}
	if (&mirror{r: r}).hasMethod(tv.Type) {
		return
	}
	r.boxDeep(es.X, tv.Type, true)
}

// fmtIface reports whether t implements error or fmt.Stringer (methodIface
// without adding an import of fmt).
func fmtIface(t types.Type) bool {
	return types.Implements(t, errorType) || types.Implements(t, stringerType)
}
