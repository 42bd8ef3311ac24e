package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strconv"
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
	rt["MirrorDynamic"] = reflect.ValueOf(fmtmirror.Dynamic)
	rt["MirrorFormatter"] = reflect.ValueOf(fmtmirror.NewFormatter)
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
	// syntax says it is for %#v: the type switch (convText) rebuilds what
	// an interface holds in Go syntax, with its type's name.
	syntax bool
	// numeric says it is for a verb fmt calls only Format for (%d, %f):
	// String and Error are not called, Format is (to its parts too).
	numeric bool
	// static says what interfaces hold is left out of needs: the walk
	// finds it (for a tag, fmttag.go).
	static bool
	path   map[*types.Named]int // named types being rebuilt: recursion
	pos    token.Pos            // where the operand is

	conv      string       // name of the type switch, once used ("nil": none)
	convTypes []types.Type // the types it switches on
}

// boxDeep replaces operand a of type t by its rebuilt value when it needs
// one, and reports whether it did.
func (r *rewriter) boxDeep(a ast.Expr, t types.Type, show bool) bool {
	m := &mirror{r: r, show: show, path: map[*types.Named]int{}, pos: a.Pos()}
	if !m.needs(t, 0, false) {
		return false
	}
	m.rt = r.ctx.qualify(rtPath) // adds the import: only when used
	m.staticParts(a, 0)
	text := m.gen(t, "("+r.nodeText(a)+")", 0, false)
	if m.conv != "" && m.conv != "nil" {
		text = "func(" + m.conv + " func(any) any) any { return " + text + " }(" + m.convText() + ")"
	}
	if len(text) > maxMirrorText {
		return false
	}
	r.replaceNode(a, text)
	return true
}

// boxBare rebuilds operand a of type t for a verb that calls no String
// or Error (%d of an []any): what yaegi's wrappers hide is unwrapped, and
// parts with a Format method (`%d` of a struct with a Money field) are
// handed over with it.
func (r *rewriter) boxBare(a ast.Expr, t types.Type) {
	m := &mirror{r: r, numeric: true, path: map[*types.Named]int{}, pos: a.Pos()}
	if !m.needs(t, 0, false) {
		return
	}
	m.rt = r.ctx.qualify(rtPath)
	text := m.gen(t, "("+r.nodeText(a)+")", 0, false)
	if m.conv != "" && m.conv != "nil" {
		text = "func(" + m.conv + " func(any) any) any { return " + text + " }(" + m.convText() + ")"
	}
	if len(text) <= maxMirrorText {
		r.replaceNode(a, text)
	}
}

// holdsDynamic reports whether a value of type t may hold, below its top,
// a value of the session's types behind an interface (an []any), which
// yaegi hands fmt without its methods.
func (r *rewriter) holdsDynamic(t types.Type) bool {
	if !r.fmtDynamic() {
		return false
	}
	m := &mirror{r: r, path: map[*types.Named]int{}}
	return m.needs(t, 0, false)
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
	if !bare && (!m.numeric && m.hasMethod(t) || m.r.formats(t)) {
		return true
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if n.Obj().Pkg() == nil && n.Obj().Name() == "error" {
			// yaegi hands fmt an error with its method, but not with a
			// Format of what it holds.
			return depth > 0 && !bare && !m.syntax && m.formatterErrors()
		}
		if !m.session(n) || m.path[n] > 0 {
			return false
		}
		m.path[n]++
		defer func() { m.path[n]-- }()
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		// yaegi keeps the methods of what an error or a Stringer holds,
		// but not of what the session's own such interface holds.
		if m.static {
			return false
		}
		return depth > 0 && (!fmtIface(t) || m.r.ctx.declaredType(t)) || depth == 0 && m.r.fmtDynamic()
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
	if !bare && m.r.formats(t) {
		return m.genFormatter(t, tt, x)
	}
	if !bare && !m.numeric && m.hasMethod(t) {
		conv := m.rt + "." + formattedFn(t, false) + "(v.String())"
		if types.Implements(t, errorType) {
			conv = m.rt + "." + formattedFn(t, true) + "(v.Error())"
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
	if _, ok := t.Underlying().(*types.Interface); ok {
		// What an interface holds is known only when the cell runs: a
		// native walk (fmtmirror.Dynamic) with the session's type switch.
		flags := 0
		if m.show {
			flags |= fmtmirror.Show
		}
		if bare {
			flags |= fmtmirror.Bare
		}
		if m.numeric {
			flags |= fmtmirror.Numeric
		}
		// any(x): a non-empty interface handed to native code as it is
		// loses yaegi's wrapper, and with it the interpreted type.
		return m.rt + ".MirrorDynamic(any(" + x + "), " + strconv.Itoa(depth) + ", " + strconv.Itoa(flags) + ", " + m.convName(bare) + ")"
	}
	var b strings.Builder
	b.WriteString("func(v " + tt + ") any { ")
	switch u := t.Underlying().(type) {
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

// convName names the session's type switch for the values an interface
// part holds (see convText); "nil" when there is none to call.
func (m *mirror) convName(bare bool) string {
	if bare {
		return "nil" // no method is called below an unexported field
	}
	if m.conv == "" {
		if m.convTypes = m.methodTypes(); len(m.convTypes) == 0 && m.syntax {
			m.conv = "nil" // (else the registry may know it: fmtregistry.go)
		} else {
			m.conv = m.r.ctx.name("fmtconv")
		}
	}
	return m.conv
}

// methodTypes are the session's types, visible where the operand is, that
// print wrong as they are behind an interface: those with a String or
// Error method (T, or *T when only the pointer has it: a T is then printed
// without it, as in Go) first, then those whose parts need a rebuild (a
// struct with a field of type Color).
func (m *mirror) methodTypes() []types.Type {
	var methods, rebuilt []types.Type
	pkgLevel, extra := m.visibleTypes()
	for _, n := range append(extra, pkgLevel...) {
		if types.IsInterface(n) {
			continue
		}
		switch {
		case m.syntax && (m.goStringer(n) || m.r.formats(n)):
			methods = append(methods, n)
		case m.syntax && (m.goStringer(types.NewPointer(n)) || m.r.formats(types.NewPointer(n))):
			methods = append(methods, types.NewPointer(n))
		case m.syntax:
			// %#v names the type: a struct, or a type yaegi wraps (one
			// with methods); others are plain values of their
			// underlying type, and cannot be told from it.
			if _, isStruct := n.Underlying().(*types.Struct); isStruct || types.NewMethodSet(n).Len() > 0 {
				rebuilt = append(rebuilt, n)
			}
		case fmtIface(n) || m.r.formats(n):
			methods = append(methods, n)
		case fmtIface(types.NewPointer(n)) || m.r.formats(types.NewPointer(n)):
			methods = append(methods, types.NewPointer(n))
		case m.needs(n, 1, false):
			rebuilt = append(rebuilt, n)
		}
	}
	return append(methods, rebuilt...)[:min(len(methods)+len(rebuilt), maxMirrorCandidates)]
}

// convText is the type switch convName names: a value of one of the
// session's types (yaegi's wrapper of it, as native code holds it) is
// formatted by its String or Error method, or rebuilt from its type; any
// other value is returned as it is. yaegi v0.16.1 gets this one form right
// on what an []any holds: a type switch without a variable (it compares
// the interpreted type), then an assertion to the type it matched. A type
// switch with a variable, or an assertion to an interface, fails there.
// The switch may call itself (a rebuilt type's interface fields).
func (m *mirror) convText() string {
	var b strings.Builder
	b.WriteString("func() func(any) any { var " + m.conv + " func(any) any; " + m.conv + " = func(v any) any { switch v.(type) { ")
	for _, t := range m.convTypes {
		tt := m.r.ctx.typeText(t, m.r.subst)
		var ret string
		switch {
		case m.r.formats(t):
			ret = m.rt + ".MirrorFormatter(v.(" + tt + ").Format)"
		case m.syntax && m.goStringer(t):
			ret = m.rt + ".GoText(v.(" + tt + ").GoString())"
		case m.syntax:
			if types.NewMethodSet(t).Len() == 0 {
				continue // never wrapped: known by its layout below
			}
			ret = m.genSyntax(t, "v.("+tt+")", 1)
			if b.Len()+len(ret) > maxMirrorText/2 {
				continue
			}
		case types.Implements(t, errorType):
			ret = m.rt + "." + formattedFn(t, true) + "(v.(" + tt + ").Error())"
		case types.Implements(t, stringerType):
			ret = m.rt + "." + formattedFn(t, false) + "(v.(" + tt + ").String())"
		case types.NewMethodSet(t).Len() == 0:
			continue // never wrapped: known by its layout below
		default:
			ret = m.gen(t, "v.("+tt+")", 1, false)
			if b.Len()+len(ret) > maxMirrorText/2 {
				continue // the rest print without their parts' methods
			}
		}
		b.WriteString("case " + tt + ": ")
		if _, isPtr := t.(*types.Pointer); isPtr {
			b.WriteString("if v.(" + tt + ") == nil { return nil }; ")
		}
		b.WriteString("return " + ret + "; ")
	}
	b.WriteString("}; ")
	// yaegi stores some values plain (var a any = T{...}): asserted by
	// their layout, which is all yaegi compares, as the front end did
	// before the switch.
	shared := m.sharedLayouts()
	for _, t := range m.convTypes {
		base, isPtr := t.(*types.Pointer)
		if isPtr {
			t = base.Elem()
		}
		if _, isStruct := t.Underlying().(*types.Struct); !isStruct || shared[m.layout(t, 0)] {
			continue // another of the session's types looks the same to yaegi
		}
		if strings.Contains(m.layout(t, 0), "interface") {
			continue // the native walk finds its interface fields' wrappers
		}
		if !isPtr {
			m.layoutCase(&b, t)
		}
		if pt := types.NewPointer(t); m.syntax || fmtIface(pt) || m.r.formats(pt) {
			m.layoutCase(&b, pt) // &T{...} in an any is plain too
		}
	}
	if !m.syntax {
		b.WriteString("if r, ok := " + m.r.fmtRegistry() + "(v); ok { return r }; ") // the session's other types
	}
	b.WriteString("return v }; return " + m.conv + " }()")
	return b.String()
}

// layoutCase writes the comma-ok assertion of a plain value of t (a
// struct of the session, or a pointer to one) in the type switch.
func (m *mirror) layoutCase(b *strings.Builder, t types.Type) {
	tt := m.r.ctx.typeText(t, m.r.subst)
	var ret string
	switch {
	case m.r.formats(t):
		ret = m.rt + ".MirrorFormatter(x.Format)"
	case !m.syntax && types.Implements(t, errorType):
		ret = m.rt + "." + formattedFn(t, true) + "(x.Error())"
	case !m.syntax && types.Implements(t, stringerType):
		ret = m.rt + "." + formattedFn(t, false) + "(x.String())"
	case m.syntax && m.goStringer(t):
		ret = m.rt + ".GoText(x.GoString())"
	case m.syntax:
		ret = m.genSyntax(t, "x", 1)
	default:
		ret = m.gen(t, "x", 1, false)
	}
	if b.Len()+len(ret) > maxMirrorText/2 {
		return // the rest print without their parts' methods
	}
	if _, isPtr := t.(*types.Pointer); isPtr {
		ret = "if x == nil { return nil }; return " + ret
	} else {
		ret = "return " + ret
	}
	b.WriteString("if x, ok := v.(" + tt + "); ok { " + ret + " }; ")
}

// visibleTypes are the session's named types visible where the operand
// is: those of the package scope not shadowed there (generic ones left
// out), and the extra ones, types declared in the enclosing functions
// before the operand and the instances of the session's generic types the
// cell names (W[int]; those only earlier cells name are not known here),
// innermost first.
func (m *mirror) visibleTypes() (pkgLevel, extra []*types.Named) {
	scope := m.r.ctx.chk.scope()
	inner := scope.Innermost(m.pos)
	for s := inner; s != nil && s != scope; s = s.Parent() {
		for _, name := range s.Names() {
			if tn, ok := s.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() && tn.Pos() < m.pos {
				if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 {
					if _, obj := inner.LookupParent(name, m.pos); obj == tn {
						extra = append(extra, n)
					}
				}
			}
		}
	}
	var insts []*types.Named
	seen := map[string]bool{}
	for id, inst := range m.r.code.info.Instances {
		if !m.r.ctx.chk.cur.contains(id.Pos()) {
			continue // another cell's (the whole model's info has them all)
		}
		n, ok := inst.Type.(*types.Named)
		if ok && m.r.ctx.chk.local(n.Obj().Pkg()) && n.TypeArgs().Len() > 0 && !seen[n.String()] && !hasTypeParam(n) {
			seen[n.String()] = true
			insts = append(insts, n)
		}
	}
	slices.SortFunc(insts, func(a, b *types.Named) int { return strings.Compare(a.String(), b.String()) })
	extra = append(extra, insts...)
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 {
			continue
		}
		if inner != nil {
			if _, obj := inner.LookupParent(name, m.pos); obj != tn {
				continue // shadowed where the operand is
			}
		}
		pkgLevel = append(pkgLevel, n)
	}
	return pkgLevel, extra
}

// hasTypeParam reports whether t mentions a type parameter.
func hasTypeParam(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			if hasTypeParam(t.TypeArgs().At(i)) {
				return true
			}
		}
	case *types.Pointer:
		return hasTypeParam(t.Elem())
	case *types.Slice:
		return hasTypeParam(t.Elem())
	case *types.Array:
		return hasTypeParam(t.Elem())
	case *types.Map:
		return hasTypeParam(t.Key()) || hasTypeParam(t.Elem())
	case *types.Chan:
		return hasTypeParam(t.Elem())
	}
	return false
}

// sharedLayouts are the layouts (see layout) of more than one of the
// session's struct types: a plain value of one of them cannot be told
// from the others.
func (m *mirror) sharedLayouts() map[string]bool {
	scope := m.r.ctx.chk.scope()
	seen := map[string]int{}
	count := func(t types.Type) {
		if _, isStruct := t.Underlying().(*types.Struct); isStruct {
			seen[m.layout(t, 0)]++
		}
	}
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
			count(tn.Type())
		}
	}
	_, extra := m.visibleTypes()
	for _, n := range extra {
		count(n) // a local type or an instance: not counted above
	}
	shared := map[string]bool{}
	for k, n := range seen {
		shared[k] = n > 1
	}
	return shared
}

// layout is what yaegi makes of t for native code: the session's named
// types as their underlying types, unexported fields renamed X….
func (m *mirror) layout(t types.Type, depth int) string {
	if n, ok := types.Unalias(t).(*types.Named); ok && !m.session(n) || depth > maxMirrorDepth {
		return t.String() // a compiled type keeps its name
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		var b strings.Builder
		b.WriteString("struct{")
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				b.WriteString("X")
			}
			b.WriteString(f.Name() + " " + m.layout(f.Type(), depth+1) + ";")
		}
		return b.String() + "}"
	case *types.Pointer:
		return "*" + m.layout(u.Elem(), depth+1)
	case *types.Slice:
		return "[]" + m.layout(u.Elem(), depth+1)
	case *types.Array:
		return "[" + strconv.FormatInt(u.Len(), 10) + "]" + m.layout(u.Elem(), depth+1)
	case *types.Map:
		return "map[" + m.layout(u.Key(), depth+1) + "]" + m.layout(u.Elem(), depth+1)
	}
	return t.Underlying().String()
}

// showExpr rebuilds the value of a top-level expression statement, which
// the REPL shows, when its parts print wrong as they are. Values with a
// method of their own, errors, Stringers, constants and tuples are left
// to the sandbox, which shows them through their methods.
func (r *rewriter) showExpr(st ast.Stmt) {
	es, ok := st.(*ast.ExprStmt)
	if !ok || r.wrapped {
		return
	}
	held := r.holdChecks(r.off(es.X.Pos()))
	defer func() { r.edits = append(r.edits, held...) }()
	tv, ok := r.code.info.Types[es.X]
	if ok && r.formats(tv.Type) {
		r.boxDeep(es.X, tv.Type, true) // fmt would call Format: so does the prompt
		return
	}
	if !ok || tv.Type == nil || tv.Value != nil || types.IsInterface(tv.Type) && fmtIface(tv.Type) {
		return // an error or Stringer is shown by its method (sandbox)
	}
	if _, tuple := tv.Type.(*types.Tuple); tuple {
		return
	}
	if (&mirror{r: r}).hasMethod(tv.Type) {
		return
	}
	if r.showFuncType(es.X, tv.Type) {
		return
	}
	r.boxDeep(es.X, tv.Type, true)
}

// showFuncType shows a value of a named function type by that type's
// name (maps.Keys(m) is an iter.Seq[string]): native code sees only the
// signature, func(func(string) bool). It reports whether it did.
func (r *rewriter) showFuncType(x ast.Expr, t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	if _, isFunc := n.Underlying().(*types.Signature); !isFunc {
		return false
	}
	name := types.TypeString(substType(t, r.subst), func(p *types.Package) string {
		if r.ctx.chk.local(p) {
			return "" // the session's own, as :type names them
		}
		return p.Name()
	})
	rt := r.ctx.qualify(rtPath)
	r.replaceNode(x, "func(v "+r.ctx.typeText(t, r.subst)+") any { if v == nil { return "+rt+".Stringer("+
		strconv.Quote(name+"(nil)")+") }; return "+rt+".Stringer("+strconv.Quote(name)+") }("+r.nodeText(x)+")")
	return true
}

// fmtIface reports whether t implements error or fmt.Stringer (methodIface
// without adding an import of fmt).
func fmtIface(t types.Type) bool {
	return types.Implements(t, errorType) || types.Implements(t, stringerType)
}

// formatterErrors reports whether a struct type of the session's the
// operand's site sees has both Error and Format (T or *T): an error part
// may then hold one, whose Format fmt calls (fmtmirror's walk asks conv).
func (m *mirror) formatterErrors() bool {
	if !m.r.ctx.chk.declaresFmtMethods() {
		return false
	}
	pkgLevel, extra := m.visibleTypes()
	for _, n := range append(extra, pkgLevel...) {
		if _, isStruct := n.Underlying().(*types.Struct); !isStruct || hasTypeParam(n) {
			continue
		}
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			if m.r.formats(t) && types.Implements(t, errorType) {
				return true
			}
		}
	}
	return false
}
