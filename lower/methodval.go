package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// methodValue works around yaegi failing to call a method value (x.M not
// called at once) or a method expression (T.M, (*T).M) of a type the
// session declared ("reflect: Call with too many input arguments"): both
// become function literals that call the method. A method value binds its
// receiver when evaluated, as in Go: x.M becomes a literal applied to x
// (or &x, for a pointer method of an addressable x).
func (r *rewriter) methodValue(n *ast.SelectorExpr) {
	sel := r.code.info.Selections[n]
	if sel == nil || sel.Kind() == types.FieldVal {
		return
	}
	if call, ok := r.parent().(*ast.CallExpr); ok && ast.Unparen(call.Fun) == n {
		if sel.Kind() == types.MethodExpr {
			r.methodExprCall(call, n)
		}
		return // a method call: nothing to lower
	}
	if p, ok := r.parent().(*ast.ParenExpr); ok && len(r.stack) >= 3 {
		if call, ok := r.stack[len(r.stack)-3].(*ast.CallExpr); ok && call.Fun == p {
			return
		}
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok || !r.ctx.chk.local(fn.Pkg()) {
		return
	}
	sig, ok := r.typeOf(n).(*types.Signature)
	if !ok {
		return
	}
	name := n.Sel.Name
	params, args := r.sigParams(sig, 0)
	results := r.sigResults(sig)
	ret := ""
	if sig.Results().Len() > 0 {
		ret = "return "
	}
	if sel.Kind() == types.MethodExpr {
		// sig's first parameter is the receiver.
		recv := args[0]
		call := recv + "." + name + "(" + strings.Join(args[1:], ", ") + variadicDots(sig) + ")"
		r.replaceNode(n, "func("+strings.Join(params, ", ")+")"+results+" { "+ret+call+" }")
		return
	}
	recv := r.ctx.name("r")
	check := ""
	x, recvT, nilIface, ok := r.boundReceiver(n, sel)
	if !ok {
		recvT = sel.Recv()
		x = r.nodeText(n.X)
		if _, ptr := recvT.Underlying().(*types.Pointer); !ptr && needsPointer(sel) {
			recvT = types.NewPointer(recvT)
			x = "&" + x
		}
	} else if nilIface {
		check = r.nilMethodValue(recv)
	}
	call := recv + "." + name + "(" + strings.Join(args, ", ") + variadicDots(sig) + ")"
	fnType := "func(" + strings.Join(params, ", ") + ")" + results
	r.replaceNode(n, "func("+recv+" "+r.ctx.typeText(recvT, r.subst)+") "+fnType+" { "+check+"return "+fnType+" { "+ret+call+" } }("+x+")")
}

// methodExprCall lowers a call of a method expression, T.M(x, a) or
// I.M(x, a), which yaegi v0.16.1 refuses ("too many arguments"), to the
// method call x.M(a): the same call, with the receiver evaluated first.
func (r *rewriter) methodExprCall(call *ast.CallExpr, n *ast.SelectorExpr) {
	sig, ok := r.typeOf(n).(*types.Signature)
	if !ok || len(call.Args) != sig.Params().Len() && !sig.Variadic() || len(call.Args) == 0 {
		return // T.M(f()) with a multi-valued f: the receiver is one of its results
	}
	if _, tuple := r.code.info.TypeOf(call.Args[0]).(*types.Tuple); tuple || sig.Variadic() && len(call.Args) < sig.Params().Len()-1 {
		return
	}
	recv := "(" + r.nodeText(call.Args[0]) + ")"
	if tv := r.code.info.Types[call.Args[0]]; tv.Value != nil || tv.IsNil() {
		// T.M(2), I.M(nil): the constant becomes a T first.
		recv = "(" + r.ctx.typeText(sig.Params().At(0).Type(), r.subst) + ")" + recv
	}
	args := make([]string, len(call.Args)-1)
	for i, a := range call.Args[1:] {
		args[i] = r.nodeText(a)
	}
	dots := ""
	if call.Ellipsis.IsValid() {
		dots = "..."
	}
	r.replaceNode(call, recv+"."+n.Sel.Name+"("+strings.Join(args, ", ")+dots+")")
}

// needsPointer reports whether the method of sel, selected on a value that
// is not a pointer, has a pointer receiver reached without a pointer on the
// way (then Go takes the operand's address).
func needsPointer(sel *types.Selection) bool {
	fn := sel.Obj().(*types.Func)
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	if _, ptr := recv.Type().(*types.Pointer); !ptr {
		return false
	}
	t := sel.Recv()
	for _, i := range sel.Index()[:len(sel.Index())-1] {
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return false
		}
		t = st.Field(i).Type()
		if _, ptr := t.Underlying().(*types.Pointer); ptr {
			return false
		}
	}
	return true
}

// sigParams names the parameters of sig from index from on: their
// declarations (the last one variadic if sig is) and the names.
func (r *rewriter) sigParams(sig *types.Signature, from int) (decls, names []string) {
	ps := sig.Params()
	for i := from; i < ps.Len(); i++ {
		nm := r.ctx.name("p")
		t := ps.At(i).Type()
		tt := r.ctx.typeText(t, r.subst)
		if sig.Variadic() && i == ps.Len()-1 {
			tt = "..." + r.ctx.typeText(t.(*types.Slice).Elem(), r.subst)
		}
		decls = append(decls, nm+" "+tt)
		names = append(names, nm)
	}
	return decls, names
}

// sigResults writes the result list of sig (with its leading space).
func (r *rewriter) sigResults(sig *types.Signature) string {
	rs := sig.Results()
	switch rs.Len() {
	case 0:
		return ""
	case 1:
		return " " + r.ctx.typeText(rs.At(0).Type(), r.subst)
	}
	parts := make([]string, rs.Len())
	for i := range parts {
		parts[i] = r.ctx.typeText(rs.At(i).Type(), r.subst)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func variadicDots(sig *types.Signature) string {
	if sig.Variadic() {
		return "..."
	}
	return ""
}
