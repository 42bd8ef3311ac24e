package lower

import (
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// lackingTypes lists the session's types (T and *T) that have methods but
// not all of interface t's, whose values yaegi v0.16.1's type switch takes
// for implementations of t: a T whose pointer alone has t's methods
// (interface/receiver.go of Go's tests: `i.(P)` of a T held in an
// interface{} succeeded), a U that lacks one (interface/convert.go:
// `e.(StringLengther)` of a U with String only). Only types with methods:
// yaegi boxes their values with their type, so a case on them is exact.
// Only the types the cell names: the incremental check sees those and not
// necessarily the others, and lowers as the whole model does.
func (ctx *lowerCtx) lackingTypes(t types.Type, named map[*types.TypeName]bool) []string {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.Empty() {
		return nil
	}
	scope := ctx.chk.scope()
	var lacking []string
	for _, nt := range ctx.sessionTypes() {
		if !named[nt.Obj()] {
			continue
		}
		ptr := types.NewPointer(nt)
		if nt.Obj().Parent() != scope || types.NewMethodSet(ptr).Len() == 0 {
			continue
		}
		if !types.Implements(nt, it) {
			lacking = append(lacking, ctx.typeText(nt, nil))
		}
		if !types.Implements(ptr, it) {
			lacking = append(lacking, ctx.typeText(ptr, nil))
		}
	}
	sort.Strings(lacking)
	return lacking
}

// lackingSwitch is the statement that fails (fail) on values of the types
// lacking t's methods, and a key of that list for the helper's name. One
// type a case, no variable bound: yaegi's case of several types missed
// them, and so did a case of a switch that binds one (`switch v :=
// x.(type) { case T: }` with T having methods).
func (ctx *lowerCtx) lackingSwitch(t types.Type, named map[*types.TypeName]bool, fail string) (stmt, key string) {
	ls := ctx.lackingTypes(t, named)
	if len(ls) == 0 {
		return "", ""
	}
	var b strings.Builder
	b.WriteString("switch x.(type) { ")
	for _, l := range ls {
		b.WriteString("case " + l + ": " + fail + "; ")
	}
	b.WriteString("}; ")
	return b.String(), ";" + strings.Join(ls, ",")
}

// cellTypeNames are the type names the code being rewritten (the root of
// the walk) declares or uses.
func (r *rewriter) cellTypeNames() map[*types.TypeName]bool {
	names := map[*types.TypeName]bool{}
	if len(r.stack) == 0 {
		return names
	}
	root := r.stack[0]
	for _, m := range []map[*ast.Ident]types.Object{r.code.info.Defs, r.code.info.Uses} {
		for id, o := range m {
			if tn, ok := o.(*types.TypeName); ok && id.Pos() >= root.Pos() && id.Pos() < root.End() {
				names[tn] = true
			}
		}
	}
	return names
}
