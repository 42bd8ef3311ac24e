package lower

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
	"strings"

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
}

// dynamicTypeName replaces interface operand a of a %T by code that
// names its dynamic type as Go does; false when there is nothing to tell.
func (r *rewriter) dynamicTypeName(a ast.Expr) bool {
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: a.Pos()}
	pkgLevel, extra := m.visibleTypes()
	named := append(extra, pkgLevel...)
	if len(named) == 0 {
		return false
	}
	name := func(t types.Type) string {
		return strconv.Quote(types.TypeString(t, func(p *types.Package) string { return p.Name() }))
	}
	shared := m.sharedLayouts()
	var cases, layouts strings.Builder
	for _, n := range named {
		if types.IsInterface(n) || hasTypeParam(n) {
			continue
		}
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			tt := r.ctx.typeText(t, r.subst)
			if types.NewMethodSet(t).Len() > 0 {
				cases.WriteString("case " + tt + ": return " + name(t) + "; ")
			}
			if _, isStruct := n.Underlying().(*types.Struct); isStruct && !shared[m.layout(n, 0)] {
				layouts.WriteString("if _, ok := v.(" + tt + "); ok { return " + name(t) + " }; ")
			}
		}
	}
	if cases.Len() == 0 && layouts.Len() == 0 {
		return false
	}
	text := "func(v any) string { "
	if cases.Len() > 0 {
		text += "switch v.(type) { " + cases.String() + "}; "
	}
	if layouts.Len() > 0 {
		// A value converted to an interface of a compiled package (error)
		// is yaegi's wrapper of it: asserted by what it holds.
		text += "v = " + r.ctx.qualify(rtPath) + ".Inner(v); " + layouts.String()
	}
	text += "return " + r.ctx.qualify(rtPath) + ".TypeName(v) }(" + r.nodeText(a) + ")"
	if len(text) > maxMirrorText {
		return false
	}
	r.replaceNode(a, text)
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
