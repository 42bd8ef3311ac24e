package lower

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// deferChain lowers the defers of a function that can run more than one
// deferred call. yaegi v0.16.1 runs a frame's deferred calls in one loop
// inside a Go defer: the first of them that panics ends the loop, so the
// later ones never run and the new panic cannot be recovered by them
// (recover.go, issue52072.go of Go's tests). Go runs every deferred call;
// one that panics replaces the panic in flight, which a later one may
// recover, and what is left propagates when the last has run.
//
// Each deferred call becomes a deferred literal (a link) that keeps the
// panic in flight in a variable of the function instead of in yaegi's
// frame: the first link takes it with recover(); each link calls its call
// inside a frame where that panic is in flight again (a deferred call after
// panic(p)), so the call's own recover() sees it, and catches what comes
// out of the call one frame up; the last link to run (a counter of the
// links registered) panics with what is left:
//
//	ʟdn++; defer func(ʟa T) {
//		ʟq := rt.Recovered(recover()); if ʟq != nil { ʟdp = ʟq }
//		ʟdn--; ʟp := ʟdp; ʟdp = nil
//		func() {
//			defer func() { ʟdp = rt.Recovered(recover()) }()
//			func() { if ʟp != nil { defer CALL; panic(ʟp) }; CALL }()
//		}()
//		if ʟdn == 0 && ʟdp != nil { panic(ʟdp) }
//	}(ʟa)
//
// A function with one defer statement outside loops is left alone (one
// call: nothing to skip), and so is one with defers in a range-over-func
// body (one list for the function, deferlist.go) and the cell's top level (cellDefer).
func (r *rewriter) deferChain(n *ast.DeferStmt) bool {
	body := r.enclosingBody()
	if body == nil || (r.subst == nil && len(r.fns) == 1) || len(r.fn().rf) > 0 || !r.needsDeferChain(body) {
		return false
	}
	call := n.Call
	suffix := strconv.Itoa(r.off(body.Lbrace))
	ch := chainVars{pend: "ʟdpend" + suffix, count: "ʟdnum" + suffix, restore: "ʟdrest" + suffix, rt: r.ctx.qualify(rtPath)}
	if r.firstDefer(body, n) {
		r.insert(r.off(body.Lbrace)+1, " var "+ch.pend+", "+ch.restore+" any; var "+ch.count+" int;")
	}
	if r.isDeferredRecover(call) {
		r.replaceNode(n, ch.recoverLink(r.ctx.name("da"), r.nodeText(call)))
		return true
	}
	d := r.bindDeferred(call)
	r.replaceNode(n, ch.link(d.bound, d.params, d.call, d.args))
	return true
}

// deferred is a deferred call taken apart: bound declares now the values
// the call is made with, which a literal with parameters params gets as
// its arguments args, and call is the call written with those parameters.
type deferred struct{ bound, params, call, args string }

// bindDeferred binds the callee and arguments of a deferred call at the
// defer statement, as Go evaluates them there.
func (r *rewriter) bindDeferred(call *ast.CallExpr) deferred {
	if r.callReplaced(call) {
		// Another lowering rewrote the whole call (log.Fatal, errors.As...):
		// its text is kept, its arguments evaluated when it runs.
		return deferred{call: r.nodeText(call)}
	}
	// lhs := rhs copies the values now (yaegi reads a deferred call's
	// arguments from their variables when the call runs); the literal
	// gets them as its parameters.
	var lhs, rhs, params, linkArgs []string
	bind := func(text string, t types.Type) string {
		nm := r.ctx.name("da")
		lhs, rhs = append(lhs, nm), append(rhs, text)
		params = append(params, nm+" "+r.ctx.typeText(types.Default(t), r.subst))
		linkArgs = append(linkArgs, nm)
		return nm
	}
	fun := r.nodeText(call.Fun)
	var lead []string
	recvDecl := ""
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		// As deferArgs: the loop-scoped variables it captures become
		// leading parameters, bound now.
		var lps []string
		for _, v := range r.loopCaptures(f) {
			lps = append(lps, v.Name()+" "+r.ctx.typeText(v.Type(), r.subst))
			lead = append(lead, bind(v.Name(), v.Type()))
		}
		if len(lps) > 0 {
			fun = r.litWithLeadingParams(f, lps)
		}
	default:
		if recv, t, sel, ok := r.boundRecv(call); ok { // deferrecv.go
			nm := r.ctx.name("d")
			recvDecl = nm + " := " + recv + "; "
			params = append(params, nm+" "+r.ctx.typeText(t, r.subst))
			linkArgs = append(linkArgs, nm)
			fun = nm + "." + sel.Sel.Name
		} else if r.isFuncValue(call.Fun) {
			fun = bind(fun, r.typeOf(call.Fun))
		}
	}
	args := make([]string, 0, len(lead)+len(call.Args))
	args = append(args, lead...)
	for _, a := range call.Args {
		text := r.nodeText(a)
		tv := r.code.info.Types[a]
		if tv.Value != nil || tv.IsNil() || tv.IsType() {
			args = append(args, text)
			continue
		}
		if tup, ok := tv.Type.(*types.Tuple); ok {
			var parts []string
			for k := range tup.Len() {
				nm := r.ctx.name("da")
				parts = append(parts, nm)
				params = append(params, nm+" "+r.ctx.typeText(tup.At(k).Type(), r.subst))
			}
			lhs, rhs = append(lhs, strings.Join(parts, ", ")), append(rhs, text)
			linkArgs = append(linkArgs, parts...)
			args = append(args, parts...)
			continue
		}
		args = append(args, bind(text, tv.Type))
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	bound := recvDecl
	if len(lhs) > 0 {
		bound += strings.Join(lhs, ", ") + " := " + strings.Join(rhs, ", ") + "; "
	}
	return deferred{bound, strings.Join(params, ", "), fun + "(" + strings.Join(args, ", ") + ell + ")", strings.Join(linkArgs, ", ")}
}

// link is the deferred literal of a call: bound declares the values the
// call is made with, the literal's parameters params and its arguments args.
func (c chainVars) link(bound, params, call, args string) string {
	return bound + c.count + "++; defer func(" + params + ") { " + c.take() +
		"ʟp := " + c.pend + "; " + c.pend + " = nil; " +
		"func() { defer func() { " + c.pend + " = " + c.rt + ".Recovered(recover()) }(); " +
		"func() { if ʟp != nil { defer " + call + "; panic(ʟp) }; " + call + " }() }(); " +
		c.last() + " }(" + args + ")"
}

// callReplaced reports whether an edit made so far replaced the whole of
// call, whose callee and arguments then no longer stand for it.
func (r *rewriter) callReplaced(call *ast.CallExpr) bool {
	start, end := r.off(call.Pos()), r.off(call.End())
	for _, e := range r.edits {
		if e.start <= start && e.end >= end && e.start < e.end {
			return true
		}
	}
	return false
}

// isFuncValue reports whether the callee e is a value Go evaluates at the
// defer statement (a variable, a call, a field), not a function or method
// known by name.
func (r *rewriter) isFuncValue(e ast.Expr) bool {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.Ident:
		_, isVar := r.code.info.Uses[x].(*types.Var)
		return isVar
	case *ast.SelectorExpr:
		if s := r.code.info.Selections[x]; s != nil {
			return s.Kind() == types.FieldVal
		}
		return false // a package's function, or a method expression
	case *ast.IndexExpr, *ast.IndexListExpr:
		if tv := r.code.info.Types[x]; tv.IsValue() {
			_, inst := r.code.info.Instances[indexedIdent(x)]
			return !inst
		}
		return false
	case *ast.CallExpr, *ast.TypeAssertExpr, *ast.StarExpr:
		return true
	}
	return false
}

// indexedIdent is the identifier an index expression indexes, if any.
func indexedIdent(e ast.Expr) *ast.Ident {
	var x ast.Expr
	switch e := e.(type) {
	case *ast.IndexExpr:
		x = e.X
	case *ast.IndexListExpr:
		x = e.X
	}
	switch x := x.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// enclosingBody is the body of the function the node on top of the stack
// is written in, nil at a cell's top level.
func (r *rewriter) enclosingBody() *ast.BlockStmt {
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch f := r.stack[i].(type) {
		case *ast.FuncLit:
			return f.Body
		case *ast.FuncDecl:
			return f.Body
		}
	}
	return nil
}

// functionDefers lists the defer statements of body outside its func
// literals, and whether one of them is in a loop, a range-over-func body or
// after a label (a goto can run it again).
func (r *rewriter) functionDefers(body *ast.BlockStmt) (defers []*ast.DeferStmt, repeated, rangeFunc bool) {
	labels := false
	var walk func(n ast.Node, loops int) bool
	walk = func(n ast.Node, loops int) bool {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.LabeledStmt:
				labels = true
			case *ast.ForStmt:
				if m.Init != nil {
					walk(m.Init, loops)
				}
				walk(m.Body, loops+1)
				return false
			case *ast.RangeStmt:
				if r.isRangeFunc(m) {
					walkRF := 0
					ast.Inspect(m.Body, func(k ast.Node) bool {
						if _, ok := k.(*ast.FuncLit); ok {
							return false
						}
						if _, ok := k.(*ast.DeferStmt); ok {
							walkRF++
						}
						return true
					})
					if walkRF > 0 {
						rangeFunc = true
					}
				}
				walk(m.Body, loops+1)
				return false
			case *ast.DeferStmt:
				defers = append(defers, m)
				if loops > 0 {
					repeated = true
				}
			}
			return true
		})
		return true
	}
	walk(body, 0)
	return defers, repeated || labels && len(defers) > 0, rangeFunc
}

// needsDeferChain reports whether the function of body can have several
// deferred calls pending, none of them in a range-over-func body.
func (r *rewriter) needsDeferChain(body *ast.BlockStmt) bool {
	defers, repeated, rangeFunc := r.functionDefers(body)
	return !rangeFunc && (len(defers) > 1 || repeated)
}

// firstDefer reports whether n is the first defer statement of body.
func (r *rewriter) firstDefer(body *ast.BlockStmt, n *ast.DeferStmt) bool {
	defers, _, _ := r.functionDefers(body)
	return len(defers) > 0 && defers[0] == n
}

// chainVars names the variables a function's links share: the panic in
// flight, the links not run yet, a panic to restore (recoverLink), and the
// package of the runtime helpers.
type chainVars struct{ pend, count, restore, rt string }

// take starts a link: the panic yaegi's frame holds, if any, is now the
// one in flight.
func (c chainVars) take() string {
	return "if ʟq := " + c.rt + ".Recovered(recover()); ʟq != nil { " + c.pend + " = ʟq }; " + c.count + "--; "
}

// last ends a link: the last one to run panics with what is in flight.
func (c chainVars) last() string {
	return "if " + c.count + " == 0 { if " + c.pend + " != nil { panic(" + c.pend + ") }; if " + c.restore + " != nil { panic(" + c.restore + ") } }"
}

// recoverLink is the link of `defer recover()`. The lowering of recover()
// (builtins.go) evaluates it at the defer statement, where it recovers the
// panic of the caller this function is a deferred call of: what Go does when
// the function then returns normally. When it is panicking instead, Go's
// deferred recover() is a no-op, so that panic, taken too early, is restored
// by the last link unless a panic of this function replaces it.
func (c chainVars) recoverLink(nm, recovered string) string {
	return nm + " := " + recovered + "; " + c.count + "++; defer func(" + nm + " any) { " + c.take() +
		"if " + c.pend + " != nil && " + nm + " != nil { " + c.restore + " = " + nm + " }; " + c.last() + " }(" + nm + ")"
}

// isDeferredRecover reports whether call is `recover()`.
func (r *rewriter) isDeferredRecover(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := r.code.info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "recover"
}
