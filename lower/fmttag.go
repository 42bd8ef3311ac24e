package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// A slice, map or pointer of the session's types that becomes an
// interface (`var a any = []Color{Red}`, `show(cs)` of a `func show(x
// any)`, `return m` from a `func() any`) is a plain []int to yaegi and to
// native code from then on: the print site that meets it later cannot
// know its elements' methods (fmtstatic.go handles only the conversions
// an operand itself shows). So where go/types sees such a conversion, the
// value is passed through the session's tag function of its static type
// (`ʟtag_H(cs)`, which returns it unchanged, with its type), which records
// its identity in fmtmirror's table with the session's rebuilder of that
// type; fmtmirror.Dynamic, at every print site, looks a plain slice, map or
// pointer up there. Nothing else sees a difference: what is stored is the
// value itself.

func init() {
	rt := Runtime[rtPath+"/rt"]
	rt["MirrorTag"] = reflect.ValueOf(fmtmirror.Tag)
	rt["MirrorRebuilder"] = reflect.ValueOf(fmtmirror.NewRebuilder)
	rt["MirrorTagIface"] = reflect.ValueOf(fmtmirror.TagIface)
	rt["MirrorTagBox"] = reflect.ValueOf(fmtmirror.TagBox)
	rt["Rebuilder"] = reflect.ValueOf((*fmtmirror.Rebuilder)(nil))
	rt["TaggedIfaceName"] = reflect.ValueOf(fmtmirror.TaggedIfaceName)
}

// tagValue passes e through its type's tag function where e, a slice,
// map or pointer whose parts print by the session's methods, is
// implicitly converted to an interface.
func (r *rewriter) tagValue(e ast.Expr) {
	tv, ok := r.code.info.Types[e]
	if !ok || tv.IsNil() || tv.IsType() || !tv.IsValue() {
		return
	}
	to := r.convTarget(e)
	if to == nil || !types.IsInterface(substType(to, r.subst)) {
		return
	}
	if call, ok := r.parent().(*ast.CallExpr); ok {
		if _, isPrint := r.printFunc(call); isPrint {
			return // its operands are rebuilt from their static types there
		}
	}
	t := r.typeOf(e)
	if t == nil {
		return
	}
	t = substType(t, r.subst)
	if r.tagIface(e, t, substType(to, r.subst)) || r.tagName(e, t, substType(to, r.subst)) || tv.Value != nil || r.tagLocal(e, t, substType(to, r.subst)) {
		return
	}
	if _, isArray := t.Underlying().(*types.Array); isArray && !r.boxable(substType(to, r.subst)) {
		return
	}
	name, ok := r.tagFunc(t)
	if !ok {
		return
	}
	r.replaceNode(e, name+"("+r.nodeText(e)+")")
}

// tagFunc declares, once a session, the tag function of t and its
// rebuilder, and returns the function's name; ok is false when a value of
// t needs no tag.
func (r *rewriter) tagFunc(t types.Type) (string, bool) {
	if !r.taggable(t) {
		return "", false
	}
	call, hash, ok := r.rebuilderCall(t, token.NoPos)
	if !ok {
		return "", false
	}
	tt := r.ctx.typeText(t, nil)
	rt := r.ctx.qualify(rtPath)
	by := "ʟtagfn_" + hash
	// The rebuilder is made by a function: a variable whose initializer
	// names the session's types (a func(v [2]Money) literal) is set by
	// yaegi after the variables of the cell that use it when a type is
	// declared after it, and their values were tagged with nil.
	mk := "ʟtagmk_" + hash
	r.ctx.declare(by, func() string {
		return "var " + by + " = " + mk + "()"
	})
	r.ctx.declare(mk, func() string {
		return "func " + mk + "() *" + rt + ".Rebuilder { return " + call + " }"
	})
	name := "ʟtag_" + hash
	if _, isArray := t.Underlying().(*types.Array); isArray {
		return r.tagBoxFunc(name, tt, by), true
	}
	r.ctx.declare(name, func() string {
		return "func " + name + "(v " + tt + ") " + tt + " { " + rt + ".MirrorTag(v, " + by + "); return v }"
	})
	return name, true
}

// rebuilderCall is the code that makes the session's Rebuilder of t
// where pos is (its type switch over the types visible there), and a
// hash of it; ok is false when it is too long.
func (r *rewriter) rebuilderCall(t types.Type, pos token.Pos) (call, hash string, ok bool) {
	_, top := t.Underlying().(*types.Pointer)
	depth := 1
	if top {
		depth = 0 // &[Red] at the top of an operand; an address below it
	}
	gen := func(show bool) string {
		m := &mirror{r: r, rt: r.ctx.qualify(rtPath), show: show, path: map[*types.Named]int{}, pos: pos}
		return m.text(t, depth)
	}
	plain, show := gen(false), gen(true)
	numeric := "nil"
	if m := (&mirror{r: r, rt: r.ctx.qualify(rtPath), numeric: true, path: map[*types.Named]int{}, pos: pos}); m.needs(t, depth, false) {
		numeric = "func(v " + r.ctx.typeText(t, nil) + ") any { return " + m.text(t, depth) + " }"
	}
	syntax := "nil"
	if m := (&mirror{r: r, rt: r.ctx.qualify(rtPath), syntax: true, path: map[*types.Named]int{}, pos: pos}); m.needsSyntax(t, depth) {
		text := m.genSyntax(t, "v", depth)
		if m.conv != "" && m.conv != "nil" {
			text = "func(" + m.conv + " func(any) any) any { return " + text + " }(" + m.convText() + ")"
		}
		syntax = "func(v " + r.ctx.typeText(t, nil) + ") any { return " + text + " }"
	}
	if len(plain)+len(show)+len(syntax)+len(numeric) > maxMirrorText {
		return "", "", false
	}
	goName := strconv.Quote(types.TypeString(t, func(p *types.Package) string { return p.Name() }))
	tt := r.ctx.typeText(t, nil)
	showFn := "nil"
	if show != plain {
		showFn = "func(v " + tt + ") any { return " + show + " }"
	}
	hash = shortHash(tt + ";" + plain + ";" + show + ";" + syntax + ";" + numeric)
	call = r.ctx.qualify(rtPath) + ".MirrorRebuilder(func(v " + tt + ") any { return " + plain + " }, " + showFn + ", " + syntax + ", " + numeric + ", " + goName + ", " + strconv.FormatBool(top) + ")"
	return call, hash, true
}

// taggable reports whether a value of t loses, in an interface, what
// prints it as Go does, and can be tagged: a slice, map or pointer
// without methods of its own (yaegi wraps a value of a type with methods,
// which the print site's type switch knows), of package-level types only
// (the tag function is declared at the cell's top), whose parts print by
// the session's methods.
func (r *rewriter) taggable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Map, *types.Array:
	case *types.Pointer:
		if _, isIface := u.Elem().Underlying().(*types.Interface); isIface {
			return false
		}
	default:
		return false
	}
	if types.NewMethodSet(t).Len() > 0 || hasTypeParam(t) || !r.mentionsCellType(t) || r.mentionsLocalType(t, 0) {
		return false
	}
	m := &mirror{r: r, static: true, path: map[*types.Named]int{}}
	return m.needs(t, 0, false)
}

// mentionsLocalType reports whether t names a type declared inside a
// function, which a declaration at the cell's top cannot name.
func (r *rewriter) mentionsLocalType(t types.Type, depth int) bool {
	if depth > maxMirrorDepth {
		return true
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && r.ctx.chk.local(obj.Pkg()) && obj.Parent() != obj.Pkg().Scope() {
			return true
		}
		for i := range t.TypeArgs().Len() {
			if r.mentionsLocalType(t.TypeArgs().At(i), depth+1) {
				return true
			}
		}
		return false // a package-level type's parts are package-level too
	case *types.Pointer:
		return r.mentionsLocalType(t.Elem(), depth+1)
	case *types.Slice:
		return r.mentionsLocalType(t.Elem(), depth+1)
	case *types.Array:
		return r.mentionsLocalType(t.Elem(), depth+1)
	case *types.Map:
		return r.mentionsLocalType(t.Key(), depth+1) || r.mentionsLocalType(t.Elem(), depth+1)
	case *types.Struct:
		for i := range t.NumFields() {
			if r.mentionsLocalType(t.Field(i).Type(), depth+1) {
				return true
			}
		}
	}
	return false
}

// tagIface converts e, of a non-struct type of the session's, to the
// compiled interface to in a function that names e's type for %T
// (fmtmirror.TagIface), when another of the session's types of the same
// underlying type has to's methods too: %T could not tell them apart
// (fmttype.go). It reports whether it did.
func (r *rewriter) tagIface(e ast.Expr, t, to types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || !r.compiledIface(to) || n.TypeArgs().Len() > 0 || r.mentionsLocalType(n, 0) || !r.ctx.chk.local(n.Obj().Pkg()) {
		return false
	}
	if _, isStruct := n.Underlying().(*types.Struct); isStruct {
		return false // keepvalue.go's box keeps it, and its type
	}
	if _, isPtr := n.Underlying().(*types.Pointer); isPtr || types.IsInterface(n) {
		return false
	}
	it := to.Underlying().(*types.Interface)
	if !types.Implements(n, it) || !r.sharesIface(n, it) {
		return false
	}
	tt, st := r.ctx.typeText(n, nil), r.ctx.typeText(to, nil)
	goName := strconv.Quote(types.TypeString(n, func(p *types.Package) string { return p.Name() }))
	name := "ʟtagI_" + shortHash(tt+";"+st+";"+goName)
	rt := r.ctx.qualify(rtPath)
	r.ctx.declare(name, func() string {
		return "func " + name + "(v " + tt + ") " + st + " { var s " + st + " = v; " + rt + ".MirrorTagIface(s, " + goName + "); return s }"
	})
	r.replaceNode(e, name+"("+r.nodeText(e)+")")
	return true
}

// sharesIface reports whether another package-level type of the
// session's, of n's underlying type, implements it.
func (r *rewriter) sharesIface(n *types.Named, it *types.Interface) bool {
	scope := r.ctx.chk.scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Type() == types.Type(n) {
			continue
		}
		o, ok := tn.Type().(*types.Named)
		if ok && o.TypeParams().Len() == 0 && types.Identical(o.Underlying(), n.Underlying()) && types.Implements(o, it) {
			return true
		}
	}
	return false
}

// text is the code that rebuilds v, of type t, at depth, with the type
// switch it uses.
func (m *mirror) text(t types.Type, depth int) string {
	text := m.gen(t, "v", depth, false)
	if m.conv != "" && m.conv != "nil" {
		text = "func(" + m.conv + " func(any) any) any { return " + text + " }(" + m.convText() + ")"
	}
	return text
}
