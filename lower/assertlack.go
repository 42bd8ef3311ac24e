package lower

import (
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
func (ctx *lowerCtx) lackingTypes(t types.Type) []string {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.Empty() {
		return nil
	}
	scope := ctx.chk.scope()
	var lacking []string
	for _, name := range scope.Names() {
		tn, isType := scope.Lookup(name).(*types.TypeName)
		if !isType || tn.IsAlias() || types.IsInterface(tn.Type()) {
			continue
		}
		named, isNamed := tn.Type().(*types.Named)
		if !isNamed || named.TypeParams().Len() > 0 {
			continue
		}
		ptr := types.NewPointer(named)
		if named.Obj().Parent() != scope || types.NewMethodSet(ptr).Len() == 0 {
			continue
		}
		if !types.Implements(named, it) {
			lacking = append(lacking, ctx.typeText(named, nil))
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
func (ctx *lowerCtx) lackingSwitch(t types.Type, fail string) (stmt, key string) {
	ls := ctx.lackingTypes(t)
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
