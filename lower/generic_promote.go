package lower

import (
	"go/types"
	"strconv"
	"strings"
)

// promotedForwarders declares, for an instance of a generic struct type
// (named name), the methods it gets from its embedded fields as methods of
// its own that call them: yaegi v0.16.1's assertions and type switches to
// an interface do not see promoted methods (`*struct { struct { Xval
// string } } is not main.getter[string]: missing method get`), while a
// call through the field works. The field's name in the instance is the
// name its type is written with (an embedded B[T] is ʟB_…).
//
// Only instances: their names are the front end's, so no later cell
// declares a method on them by hand (a method added to the generic type
// later does not see these forwarders either: the instance is declared once).
func (ctx *lowerCtx) promotedForwarders(generic *types.TypeName, args []types.Type, name string) string {
	named, ok := generic.Type().(*types.Named)
	if !ok {
		return ""
	}
	inst, err := types.Instantiate(nil, named, args, false)
	if err != nil {
		return ""
	}
	st, ok := inst.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	var b strings.Builder
	done := map[string]bool{}
	for _, recv := range []types.Type{inst, types.NewPointer(inst)} {
		ms := types.NewMethodSet(recv)
		for i := range ms.Len() {
			sel := ms.At(i)
			m := sel.Obj()
			if len(sel.Index()) < 2 || done[m.Name()] || !m.Exported() && !ctx.chk.local(m.Pkg()) {
				continue
			}
			done[m.Name()] = true
			field := ctx.embeddedName(st.Field(sel.Index()[0]).Type())
			if field == "" {
				continue
			}
			sig := sel.Type().(*types.Signature)
			var params, names []string
			for j := range sig.Params().Len() {
				p := "ʟa" + strconv.Itoa(j)
				t := sig.Params().At(j).Type()
				if sig.Variadic() && j == sig.Params().Len()-1 {
					params = append(params, p+" ..."+ctx.typeText(t.(*types.Slice).Elem(), nil))
					p += "..."
				} else {
					params = append(params, p+" "+ctx.typeText(t, nil))
				}
				names = append(names, p)
			}
			var results []string
			for j := range sig.Results().Len() {
				results = append(results, ctx.typeText(sig.Results().At(j).Type(), nil))
			}
			rt := name
			if _, ptr := recv.(*types.Pointer); ptr {
				rt = "*" + name
			}
			ret := ""
			if len(results) > 0 {
				ret = "return "
			}
			b.WriteString("\nfunc (ʟr " + rt + ") " + m.Name() + "(" + strings.Join(params, ", ") + ") (" + strings.Join(results, ", ") +
				") { " + ret + "ʟr." + field + "." + m.Name() + "(" + strings.Join(names, ", ") + ") }")
		}
	}
	return b.String()
}

// embeddedName is the name of an embedded field of type t as the lowered
// code writes it: the last part of its type's text, without a pointer.
func (ctx *lowerCtx) embeddedName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return ""
	}
	s := ctx.typeText(t, nil)
	if i := strings.LastIndex(s, "."); i >= 0 {
		s = s[i+1:]
	}
	return s
}
