package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strconv"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// A value of a non-struct type of the session's without methods that
// becomes an empty interface (`var c any = Celsius(1)`) is a plain
// float64 to yaegi and to native code: %T printed `float64`. Where
// go/types sees the conversion, the value is passed through a function
// that makes the interface value in a box of its own named by the type
// (fmtmirror.TagName), which %T looks up (fmttype.go's rt.TypeName). A
// pointer to one (`var p any = &c`, a *float64 to yaegi) is named by what
// it points to (fmtmirror.TagPointerName).

func init() {
	Runtime[rtPath+"/rt"]["MirrorTagName"] = reflect.ValueOf(fmtmirror.TagName)
	Runtime[rtPath+"/rt"]["MirrorTagPointerName"] = reflect.ValueOf(fmtmirror.TagPointerName)
}

// tagName passes e, of type t converted to the empty interface to,
// through its type's naming function; it reports whether it did.
func (r *rewriter) tagName(e ast.Expr, t, to types.Type) bool {
	t = types.Unalias(t)
	if !r.nameless(t) || !r.boxable(to) {
		return false
	}
	r.replaceNode(e, r.nameCall(t, r.nodeText(e)))
	return true
}

// namedOperand is text, of type t, as an interface operand of
// rt.IfaceEq (ifaceeq.go): passed through t's naming function when t is
// a concrete type tagName names, so that `a == Celsius(2)` compares the
// names too.
func (r *rewriter) namedOperand(t types.Type, text string) string {
	if t == nil || types.IsInterface(t) {
		return text
	}
	if t = types.Unalias(substType(t, r.subst)); !r.nameless(t) {
		return text
	}
	return r.nameCall(t, text)
}

// nameCall is the call that names text, a value of t, in an interface:
// a native call in place (an interpreted function around it cost
// yaegi's call, about 5 µs).
func (r *rewriter) nameCall(t types.Type, text string) string {
	fn := "MirrorTagName"
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan:
		fn = "MirrorTagPointerName" // no box: named by what it points to
	}
	goName := strconv.Quote(types.TypeString(t, func(p *types.Package) string { return p.Name() }))
	return r.ctx.qualify(rtPath) + "." + fn + "(" + text + ", " + goName + ")"
}

// nameless reports whether a value of t in an interface loses its type
// to native code and can be named: t mentions package-level types of the
// session's, none generic, and has no methods (yaegi wraps a value of a
// type with methods, which the print site's type switch knows); it is
// not a struct (known by its layout), not a func (no identity) and not
// tagged with a rebuilder (fmttag.go), whose name %T prints.
func (r *rewriter) nameless(t types.Type) bool {
	if types.IsInterface(t) || hasTypeParam(t) || !r.mentionsCellType(t) || r.mentionsLocalType(t, 0) || r.mentionsInstance(t, 0) {
		return false
	}
	if types.NewMethodSet(t).Len() > 0 {
		return false
	}
	if _, isPtr := t.(*types.Pointer); !isPtr && types.NewMethodSet(types.NewPointer(t)).Len() > 0 {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer
	case *types.Slice, *types.Array, *types.Map, *types.Chan:
		return !r.taggable(t)
	case *types.Pointer:
		switch u.Elem().Underlying().(type) {
		case *types.Basic, *types.Slice, *types.Array, *types.Map:
			return !r.taggable(t)
		}
		// A pointer to a struct is known by its layout where the print
		// site sees it; a pointer to a pointer is errors.As's target.
	}
	return false
}

// mentionsInstance reports whether t names an instance of a generic
// type, whose name a print site may spell otherwise.
func (r *rewriter) mentionsInstance(t types.Type, depth int) bool {
	if depth > maxMirrorDepth {
		return true
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return t.TypeArgs().Len() > 0
	case *types.Pointer:
		return r.mentionsInstance(t.Elem(), depth+1)
	case *types.Slice:
		return r.mentionsInstance(t.Elem(), depth+1)
	case *types.Array:
		return r.mentionsInstance(t.Elem(), depth+1)
	case *types.Chan:
		return r.mentionsInstance(t.Elem(), depth+1)
	case *types.Map:
		return r.mentionsInstance(t.Key(), depth+1) || r.mentionsInstance(t.Elem(), depth+1)
	}
	return false
}
