package lower

import (
	"go/ast"
	"strconv"
)

// deferList lowers the defers of a function with a defer in a
// range-over-func body. That body becomes the iterator's yield literal
// (rangefunc.go), where yaegi would run the deferred call when the literal
// returns, in its frame: Go runs it when the enclosing function returns,
// where its recover() can stop the function's panic (issue71675.go of Go's
// tests). So every defer of the function, in such a body or not, appends
// its call to one list of the function, and one deferred literal at the
// top of the function runs the list last in first out:
//
//	var ʟdl []func(any) any
//	defer func() { ʟp := rt.Recovered(recover()); for ʟi := len(ʟdl) - 1; ʟi >= 0; ʟi-- { ʟp = ʟdl[ʟi](ʟp) }; if ʟp != nil { panic(ʟp) } }()
//
// Each entry gets the panic in flight and returns what is left of it: it
// makes its call inside a frame where that panic is in flight again (a
// deferred call after panic(p)), so the call's own recover() sees it, and
// catches what comes out one frame up, as a link of deferChain does. Each
// entry is made by a literal called at the defer statement, whose
// parameters bind the call's values (yaegi's closures share the variables
// of a loop body), and whose frame is the entry's: yaegi locks the frame a
// closure was made in when the closure returns, and the function's frame
// stays locked while its deferred calls run, so an entry made there would
// hang the runner.
func (r *rewriter) deferList(n *ast.DeferStmt) bool {
	body := r.enclosingBody()
	if body == nil || (r.subst == nil && len(r.fns) == 1) {
		return false
	}
	if _, _, rangeFunc := r.functionDefers(body); !rangeFunc {
		return false
	}
	list := "ʟdlist" + strconv.Itoa(r.off(body.Lbrace))
	rt := r.ctx.qualify(rtPath)
	if r.firstDefer(body, n) {
		r.insert(r.off(body.Lbrace)+1, " var "+list+" []func(any) any; defer func() { ʟp := "+rt+".Recovered(recover()); "+
			"for ʟi := len("+list+") - 1; ʟi >= 0; ʟi-- { ʟp = "+list+"[ʟi](ʟp) }; if ʟp != nil { panic(ʟp) } }();")
	}
	if r.isDeferredRecover(n.Call) {
		// The lowered recover() is evaluated here, as in deferChain's
		// recoverLink; the entry passes the panic on.
		r.replaceNode(n, "{ _ = "+r.nodeText(n.Call)+"; "+list+" = append("+list+", func() func(any) any { return func(ʟp any) any { return ʟp } }()) }")
		return true
	}
	d := r.bindDeferred(n.Call)
	entry := "func(ʟp any) any { var ʟq any; func() { defer func() { ʟq = " + rt + ".Recovered(recover()) }(); " +
		"func() { if ʟp != nil { defer " + d.call + "; panic(ʟp) }; " + d.call + " }() }(); return ʟq }"
	entry = "func(" + d.params + ") func(any) any { return " + entry + " }(" + d.args + ")"
	r.replaceNode(n, "{ "+d.bound+list+" = append("+list+", "+entry+") }")
	return true
}
