package lower

import (
	"go/ast"
	"go/types"

	"github.com/replhost/replhost/internal/yaegix"
)

// isExitPanic reports whether v is the panic by which yaegi's restricted
// os.Exit ends a cell (yaegix.ExitCode).
func isExitPanic(v any) bool {
	_, ok := yaegix.ExitCode(v)
	return ok
}

// Exiting returns print followed by os.Exit(1): log.Fatal and
// log.Fatalln, which yaegi makes log.Panic (a deferred recover then
// cancelled them).
func Exiting(print func(...any)) func(...any) {
	return func(v ...any) {
		print(v...)
		panic(yaegix.ExitPanic(1))
	}
}

// Exitingf is Exiting for log.Fatalf.
func Exitingf(printf func(string, ...any)) func(string, ...any) {
	return func(format string, v ...any) {
		printf(format, v...)
		panic(yaegix.ExitPanic(1))
	}
}

// fatalCall lowers log.Fatal, log.Fatalf and log.Fatalln to the log's
// Print function followed by an exit no recover stops (see Recovered).
func (r *rewriter) fatalCall(n *ast.CallExpr) {
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	fn, ok := r.code.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "log" || fn.Type().(*types.Signature).Recv() != nil {
		return
	}
	log := r.nodeText(sel.X)
	rt := r.ctx.qualify(rtPath)
	switch fn.Name() {
	case "Fatal":
		r.replaceNode(n.Fun, rt+".Exiting("+log+".Print)")
	case "Fatalln":
		r.replaceNode(n.Fun, rt+".Exiting("+log+".Println)")
	case "Fatalf":
		r.replaceNode(n.Fun, rt+".Exitingf("+log+".Printf)")
	}
}
