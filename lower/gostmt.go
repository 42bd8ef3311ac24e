package lower

import (
	"fmt"
	"go/ast"
	"go/types"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
)

// GoPanicEndsProcess makes GoPanic end the process as Go ends a program:
// the panic's report on the process's own stderr and exit status 2. A
// worker process sets it (the host then reports the session crashed, with
// the panic, and restores it); in the host (inproc mode) it stays false and
// only the goroutine ends.
var GoPanicEndsProcess bool

// BeforeProcessEnd, when set (a worker process sets it, with
// GoPanicEndsProcess), runs before a goroutine's panic or os.Exit ends the
// process: the worker sends the output it holds.
var BeforeProcessEnd func()

// GoPanic reports v, the recovered value of a goroutine started by a `go`
// statement of interpreted code, as Go's runtime reports an unrecovered
// panic ("panic: V" and the goroutine line) on w, the code's os.Stderr.
// Without it a goroutine panic unwinds through yaegi and ends the whole
// process: in inproc mode the host and every session.
func GoPanic(w io.Writer, v any) {
	if v == nil {
		return
	}
	if GoPanicEndsProcess {
		if BeforeProcessEnd != nil {
			BeforeProcessEnd()
		}
		if code, ok := yaegix.ExitCode(v); ok {
			os.Exit(code) // in a goroutine too, os.Exit ends the program
		}
		// As the runtime would, had yaegi not recovered it: panicking
		// again printed "[recovered, repanicked]" and yaegi's frames.
		fmt.Fprintf(os.Stderr, "panic: %s\n\ngoroutine [running]:\n(a goroutine of the session's code)\n", panicText(Recovered(v)))
		os.Exit(2)
	}
	printMu.Lock()
	defer printMu.Unlock()
	if isExitPanic(v) { // Recovered would panic again: that is how exits pass a recover
		fmt.Fprintf(w, "error: %s called in a goroutine: only the goroutine ended\n", v)
		return
	}
	fmt.Fprintf(w, "panic: %s\n\ngoroutine [running]:\n(a goroutine of the session's code)\n", panicText(Recovered(v)))
}

// panicText is a panic value as the runtime's printpanicval writes it.
func panicText(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	case string:
		return x
	}
	t := reflect.TypeOf(v)
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		if t.PkgPath() == "" {
			return fmt.Sprint(v) // a predeclared type: panic(3) prints 3
		}
		return fmt.Sprintf("%T(%v)", v, v)
	}
	return fmt.Sprintf("(%T) %v", v, v)
}

// goStmt makes a goroutine's panic GoPanic's report instead of the end of
// the process. `go func(...) {...}(args)` gets a deferred recover first in
// its body; `go f(args)` of a declared, non-generic, non-variadic function
// becomes such a literal whose parameters take the arguments, so they are
// still evaluated by the go statement; so does `go x.M(args)`, with its
// receiver bound by the go statement too (goMethod). Other calls (func
// values, builtins, variadic ones) are left alone. A go statement whose
// callee is (or becomes) a literal runs in a frame of its own (ownFrame).
func (r *rewriter) goStmt(n *ast.GoStmt) {
	guard := "defer func() { " + r.ctx.qualify(rtPath) + ".GoPanic(" + r.ctx.qualify("os") + ".Stderr, recover()) }(); "
	if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
		r.insert(r.off(lit.Body.Lbrace)+1, guard)
		r.ownFrame(n)
		return
	}
	if recv, rt, sel, ok := r.boundRecv(n.Call); ok { // see deferrecv.go
		if r.goMethod(n, recv, rt, sel, guard) {
			r.ownFrame(n)
		}
		return
	}
	id, ok := ast.Unparen(n.Call.Fun).(*ast.Ident)
	if !ok || n.Call.Ellipsis.IsValid() {
		return
	}
	fn, ok := r.code.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	sig := fn.Type().(*types.Signature)
	if sig.Variadic() || sig.TypeParams().Len() > 0 || sig.Params().Len() != len(n.Call.Args) {
		return
	}
	var params, names, args []string
	for i, a := range n.Call.Args {
		name := fmt.Sprintf("ʟg%d", i)
		params = append(params, name+" "+r.ctx.typeExprText(sig.Params().At(i).Type(), nil))
		names = append(names, name)
		args = append(args, r.nodeText(a))
	}
	r.replaceNode(n.Call, "func("+strings.Join(params, ", ")+") { "+guard+r.nodeText(n.Call.Fun)+"("+
		strings.Join(names, ", ")+") }("+strings.Join(args, ", ")+")")
	r.ownFrame(n)
}

// ownFrame wraps a go statement of a loop body in a literal called at
// once (elsewhere it runs once per frame). yaegi keeps
// a func literal's closure in a slot of the enclosing frame between making
// it and calling it, and every call of that closure puts the slot's old
// value back when it returns. So in a loop of `go func() {...}()`, a
// goroutine that ends between the next iteration's two steps makes it
// start the previous iteration's closure, or a nil one ("reflect.Value.Call:
// call of nil function", which ends the process). Inside the wrapper the
// slot belongs to one call of it, which nothing else touches.
func (r *rewriter) ownFrame(n *ast.GoStmt) {
	if !r.inLoopBody(n) {
		return
	}
	r.insert(r.off(n.Pos()), "func() { ")
	r.insert(r.off(n.End()), " }()")
}

// goMethod writes `go x.M(args)` as a literal whose parameters take the
// receiver (boundRecv) and the arguments.
func (r *rewriter) goMethod(n *ast.GoStmt, recv string, rt types.Type, sel *ast.SelectorExpr, guard string) bool {
	sig, ok := r.typeOf(n.Call.Fun).(*types.Signature)
	if !ok || sig.Variadic() || n.Call.Ellipsis.IsValid() || sig.Params().Len() != len(n.Call.Args) {
		return false
	}
	params := []string{"ʟgr " + r.ctx.typeText(rt, r.subst)}
	args := []string{recv}
	var names []string
	for i, a := range n.Call.Args {
		name := fmt.Sprintf("ʟg%d", i)
		params = append(params, name+" "+r.ctx.typeText(sig.Params().At(i).Type(), r.subst))
		names = append(names, name)
		args = append(args, r.nodeText(a))
	}
	r.replaceNode(n.Call, "func("+strings.Join(params, ", ")+") { "+guard+"ʟgr."+sel.Sel.Name+"("+
		strings.Join(names, ", ")+") }("+strings.Join(args, ", ")+")")
	return true
}
