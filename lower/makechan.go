package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// makeDirChan lowers make of a send-only or receive-only channel type
// (`make(<-chan int)`, `make(Recv)` with `type Recv <-chan int`) to a
// conversion of a bidirectional one, `(Recv)(make(chan int))`, which is
// what the value is: yaegi v0.16.1 hands the type to reflect.MakeChan,
// which panics ("reflect.MakeChan: unidirectional channel type").
func (r *rewriter) makeDirChan(n *ast.CallExpr) {
	if len(n.Args) < 1 || len(n.Args) > 2 || !r.callsBuiltin(n, "make") {
		return
	}
	t := r.typeOf(n.Args[0])
	if t == nil {
		return
	}
	ch, ok := t.Underlying().(*types.Chan)
	if !ok || ch.Dir() == types.SendRecv {
		return
	}
	elem := substType(ch.Elem(), r.subst)
	if mentionsTypeParam(elem) {
		return
	}
	args := []string{"chan " + r.ctx.typeText(elem, nil)}
	if len(n.Args) == 2 {
		args = append(args, r.nodeText(n.Args[1]))
	}
	r.replaceNode(n, "("+r.nodeText(n.Args[0])+")("+r.nodeText(n.Fun)+"("+strings.Join(args, ", ")+"))")
}
