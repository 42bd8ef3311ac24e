package lower

import "go/types"

// yaegi renames the unexported fields of the session's structs (x → Xx) in
// the reflect types it makes, so %+v of one held in an interface (`var a
// any = P{1, 2}`, `[]any{p}`) printed {Xx:1 Xy:2}. Where go/types sees the
// struct's type the rebuild of fmtdeep.go names its fields; what an
// interface holds goes through fmtmirror.Dynamic and the session's type
// switch, which knows each struct by its layout and rebuilds it from its
// type. That walk was made only once the session declared a fmt method;
// for a %+v operand (r.fieldNames) it is made too when a visible struct
// type of the session has an unexported field. %v prints no field names,
// and %#v has a walk of its own (fmtsharp.go).

// hiddenFields reports whether a struct type of the session visible at the
// current operand has an unexported field.
func (r *rewriter) hiddenFields() bool {
	m := &mirror{r: r, path: map[*types.Named]int{}}
	if len(r.stack) > 0 {
		m.pos = r.stack[len(r.stack)-1].Pos()
	}
	pkgLevel, extra := m.visibleTypes()
	for _, n := range append(extra, pkgLevel...) {
		if s, ok := n.Underlying().(*types.Struct); ok {
			for i := range s.NumFields() {
				if !s.Field(i).Exported() {
					return true
				}
			}
		}
	}
	return false
}
