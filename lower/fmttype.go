package lower

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/fmtmirror"
	"github.com/replhost/replhost/internal/yaegix"
)

// %T of an operand of interface type prints the dynamic type as yaegi
// hands it to fmt: its wrapper's (`stdlib._fmt_Stringer`,
// `interp.valueInterface`) or the underlying type (`struct { X int }` for
// main.P). The front end names it instead, by a type switch over the
// session's types where the operand is (one with methods is wrapped: the
// switch tells it exactly) and comma-ok assertions for its structs and
// pointers to them that yaegi stores plain (by layout: only for a layout
// no other of its struct types shares). Other values are named by
// rt.TypeName, their wrapper opened.

func init() {
	Runtime[rtPath+"/rt"]["TypeName"] = reflect.ValueOf(TypeName)
	Runtime[rtPath+"/rt"]["Inner"] = reflect.ValueOf(Inner)
	Runtime[rtPath+"/rt"]["WrapperMethods"] = reflect.ValueOf(WrapperMethods)
	Runtime[rtPath+"/rt"]["MethodsCover"] = reflect.ValueOf(MethodsCover)
}

// dynamicTypeName replaces interface operand a of a %T by code that
// names its dynamic type as Go does; false when there is nothing to tell.
func (r *rewriter) dynamicTypeName(a ast.Expr) bool {
	text, ok := r.dynamicTypeText(a)
	if ok {
		r.replaceNode(a, text)
	}
	return ok
}

// dynamicTypeText is the code dynamicTypeName puts in a's place.
func (r *rewriter) dynamicTypeText(a ast.Expr) (string, bool) {
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: a.Pos()}
	pkgLevel, extra := m.visibleTypes()
	named := append(extra, pkgLevel...)
	rt := r.ctx.qualify(rtPath)
	if len(named) == 0 {
		// A value named where it became an interface (fmttagname.go),
		// also by a helper declared before its type.
		return rt + ".TypeName(" + r.nodeText(a) + ")", true
	}
	name := func(t types.Type) string {
		return strconv.Quote(types.TypeString(t, func(p *types.Package) string { return p.Name() }))
	}
	if text, ok := r.convertedTypeName(a); ok {
		return text, true
	}
	shared := m.sharedLayouts()
	var cases, layouts, wrapped strings.Builder
	for _, n := range named {
		if types.IsInterface(n) || hasTypeParam(n) {
			continue
		}
		_, isStruct := n.Underlying().(*types.Struct)
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			tt := r.ctx.typeText(t, r.subst)
			ms := types.NewMethodSet(t)
			if ms.Len() > 0 {
				cases.WriteString("case " + tt + ": return " + name(t) + "; ")
			}
			if isStruct && !shared[m.layout(n, 0)] {
				layouts.WriteString("if _, ok := v.(" + tt + "); ok { return " + name(t) + " }; ")
			}
			if !isStruct && ms.Len() > 0 {
				// In a compiled interface's wrapper, a value of a
				// non-struct type is its underlying value: it is one of
				// the types whose methods cover the interface's, when
				// only one does.
				var names []string
				for i := range ms.Len() {
					names = append(names, ms.At(i).Obj().Name())
				}
				wrapped.WriteString("if _, ok := v.(" + tt + "); ok && " + rt + ".MethodsCover(ms, " + strconv.Quote(strings.Join(names, " ")) + ") { nm, c = " + name(t) + ", c+1 }; ")
			}
		}
	}
	if cases.Len() == 0 && layouts.Len() == 0 && wrapped.Len() == 0 {
		return rt + ".TypeName(" + r.nodeText(a) + ")", true
	}
	text := "func(v any) string { "
	if cases.Len() > 0 {
		text += "switch v.(type) { " + cases.String() + "}; "
	}
	if wrapped.Len() > 0 {
		// Named where it was converted, when its methods did not tell
		// (fmttag.go).
		text += "if nm, ok := " + rt + ".TaggedIfaceName(v); ok { return nm }; ms := " + rt + ".WrapperMethods(v); "
	}
	if layouts.Len() > 0 || wrapped.Len() > 0 {
		// A value converted to an interface of a compiled package (error)
		// is yaegi's wrapper of it: asserted by what it holds.
		text += "v = " + rt + ".Inner(v); " + layouts.String()
	}
	if wrapped.Len() > 0 {
		text += "if ms != nil { nm, c := \"\", 0; " + wrapped.String() + "if c == 1 { return nm } }; "
	}
	text += "return " + rt + ".TypeName(v) }(" + r.nodeText(a) + ")"
	if len(text) > maxMirrorText {
		return "", false
	}
	return text, true
}

// convertedTypeName is code naming the static type of x for %T of
// I(x), x of a concrete type of the session's: yaegi keeps no type for a
// value without methods in an interface (`any(Celsius(2))` is a float64).
func (r *rewriter) convertedTypeName(a ast.Expr) (string, bool) {
	conv, ok := ast.Unparen(a).(*ast.CallExpr)
	if !ok || len(conv.Args) != 1 || !r.code.info.Types[conv.Fun].IsType() {
		return "", false
	}
	t := r.typeOf(conv.Args[0])
	if t == nil || types.IsInterface(t) || !r.ctx.declaredType(t) || r.code.info.Types[conv.Args[0]].IsNil() {
		return "", false
	}
	n := strconv.Quote(types.TypeString(substType(t, r.subst), func(p *types.Package) string { return p.Name() }))
	return "func(any) string { return " + n + " }(" + r.nodeText(a) + ")", true
}

// WrapperMethods is the method names of the compiled interface whose
// yaegi wrapper v is, or nil.
func WrapperMethods(v any) []string {
	names, _ := yaegix.IfaceMethods(reflect.ValueOf(v))
	return names
}

// MethodsCover reports whether every name in ms is one of the
// space-separated names of have.
func MethodsCover(ms []string, have string) bool {
	set := strings.Fields(have)
	for _, m := range ms {
		if !slices.Contains(set, m) {
			return false
		}
	}
	return true
}

// TypeName is %T of v, yaegi's wrappers opened.
func TypeName(v any) string {
	rv := reflect.ValueOf(v)
	for i := 0; i < 8 && rv.IsValid(); i++ {
		if inner, ok := yaegix.IfaceWrapped(rv); ok {
			rv = inner
			continue
		}
		if yaegix.IsWrapped(rv.Type()) {
			_, rv = yaegix.Unbox(rv.Interface())
			continue
		}
		break
	}
	if !rv.IsValid() {
		return "<nil>"
	}
	if name, ok := fmtmirror.TaggedTypeName(rv.Interface()); ok {
		return name // a slice, map or pointer of the session's types (fmttag.go)
	}
	return fmt.Sprintf("%T", rv.Interface())
}

// Inner is what v holds as native code sees it: the value inside yaegi's
// wrapper of an interpreted value (see ErrorInner), or v itself.
func Inner(v any) any {
	rv := errorValue(v)
	if !rv.IsValid() || !rv.CanInterface() {
		return nil
	}
	return rv.Interface()
}
