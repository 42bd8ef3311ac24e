package lower

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// varMulti converts the results of a call that initialises variables of
// another declared type (`var h, _ interface{} = g()`, g returning two
// slices): yaegi v0.16.1 gives the variables the results' types instead
// ("invalid type assertion: non-interface type []*main.T on left" at a
// later h.(T)). The call's results go through a function literal whose
// results have the declared type.
func (r *rewriter) varMulti(vs *ast.ValueSpec) {
	if vs.Type == nil || len(vs.Values) != 1 || len(vs.Names) < 2 {
		return
	}
	tup, ok := r.typeOf(vs.Values[0]).(*types.Tuple)
	if !ok || tup.Len() != len(vs.Names) {
		return
	}
	want := r.typeOf(vs.Type)
	if want == nil {
		return
	}
	same := true
	for i := range tup.Len() {
		same = same && types.Identical(substType(tup.At(i).Type(), r.subst), substType(want, r.subst))
	}
	if same {
		return
	}
	t := r.ctx.typeText(want, r.subst)
	var res, names []string
	for i := range tup.Len() {
		res = append(res, t)
		names = append(names, "ʟv"+strconv.Itoa(i))
	}
	r.replaceNode(vs.Values[0], "func() ("+strings.Join(res, ", ")+") { "+strings.Join(names, ", ")+" := "+r.nodeText(vs.Values[0])+"; return "+strings.Join(names, ", ")+" }()")
}
