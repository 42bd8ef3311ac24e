package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

func init() {
	Runtime[rtPath+"/rt"]["ImpossibleAssert"] = reflect.ValueOf(ImpossibleAssert)
}

// ImpossibleAssert is the panic of an assertion of x, of the interface
// iface, to target, a type that cannot implement iface, as Go words it.
func ImpossibleAssert(x any, iface, target string) TypeAssertionError {
	if x == nil {
		return TypeAssertionError{"interface conversion: " + iface + " is nil, not " + target}
	}
	return TypeAssertionError{"interface conversion: " + iface + " is " + reflect.TypeOf(x).String() + ", not " + target}
}

// impossibleAssertPanic lowers, in an instance, `x.(T)` that cannot
// succeed (T lacks a method of x's interface) and is not comma-ok to a
// call that panics with Go's message, which names x's interface type:
// yaegi v0.16.1, given the operand as any (impossibleAssert), panics with
// a nil dereference for a nil x. It reports whether it did.
func (r *rewriter) impossibleAssertPanic(n *ast.TypeAssertExpr, xt types.Type, t types.Type) bool {
	switch p := r.parent().(type) {
	case *ast.AssignStmt:
		if len(p.Lhs) == 2 {
			return false
		}
	case *ast.ValueSpec:
		if len(p.Names) == 2 {
			return false
		}
	}
	q := func(p *types.Package) string { return p.Name() }
	r.replaceNode(n, "func() "+r.ctx.typeText(t, nil)+" { panic("+r.ctx.qualify(rtPath)+".ImpossibleAssert("+
		r.nodeText(n.X)+", "+strconv.Quote(runtimeTypeString(xt, r.subst, q))+", "+strconv.Quote(types.TypeString(t, q))+")) }()")
	return true
}

// runtimeTypeString writes t as Go's runtime does in its panics: an
// interface literal as `interface { M() main.T }` (with subst's
// arguments for its type parameters).
func runtimeTypeString(t types.Type, subst map[*types.TypeParam]types.Type, q types.Qualifier) string {
	it, ok := types.Unalias(t).(*types.Interface)
	if !ok || it.NumMethods() == 0 || it.NumEmbeddeds() > 0 {
		return types.TypeString(t, q)
	}
	var ms []string
	for i := range it.NumMethods() {
		m := it.Method(i)
		ms = append(ms, m.Name()+strings.TrimPrefix(types.TypeString(substType(m.Type(), subst), q), "func"))
	}
	return "interface { " + strings.Join(ms, "; ") + " }"
}
