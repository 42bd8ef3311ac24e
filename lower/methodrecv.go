package lower

import (
	"go/ast"
	"go/types"
	"reflect"
)

// boundReceiver is the receiver a method value x.M binds, as Go evaluates
// it when the method value is: the path through embedded fields to the
// method's type is followed then (a nil pointer on the way panics), a value
// receiver is copied then (`p.M` of a value method and a nil p panics), and
// a pointer receiver of an addressable value is its address. It returns
// the receiver's text and type, and nilIface when the receiver is an
// interface (Go panics binding a method of a nil one). ok is false where
// it cannot say (a type parameter on the way): then x is bound as it is.
// yaegi v0.16.1 left the receiver to the call, so `f = p.M` of a nil p
// and `f = i.M` of a nil i did not panic.
func (r *rewriter) boundReceiver(n *ast.SelectorExpr, sel *types.Selection) (text string, t types.Type, nilIface, ok bool) {
	text = r.nodeText(n.X)
	t = sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if isTypeParam(t) {
			return "", nil, false, false
		}
		base := t
		if p, ok := t.Underlying().(*types.Pointer); ok {
			base = p.Elem()
		}
		st, ok := base.Underlying().(*types.Struct)
		if !ok {
			return "", nil, false, false
		}
		f := st.Field(i)
		fname := f.Name()
		if inst, ok := r.embeddedInstance(f); ok {
			fname = inst // an embedded generic instance is named by its instance
		}
		text = "(" + text + ")." + fname
		t = f.Type()
	}
	if isTypeParam(t) {
		return "", nil, false, false
	}
	if types.IsInterface(t) {
		return text, t, true, true
	}
	recv := sel.Obj().(*types.Func).Type().(*types.Signature).Recv()
	if recv == nil {
		return "", nil, false, false
	}
	_, recvPtr := recv.Type().(*types.Pointer)
	p, isPtr := t.Underlying().(*types.Pointer)
	switch {
	case recvPtr && !isPtr:
		text, t = "&"+text, types.NewPointer(t)
	case !recvPtr && isPtr:
		if _, named := types.Unalias(t).(*types.Named); named {
			return "", nil, false, false // a named pointer type has no methods of its own
		}
		text, t = "*"+text, p.Elem()
	}
	return text, t, false, true
}

// nilMethodValue is the statement a bound interface receiver starts with.
func (r *rewriter) nilMethodValue(recv string) string {
	return "if " + recv + " == nil { panic(" + r.ctx.qualify(rtPath) + ".NilDeref()) }; "
}

// NilDeref is Go's panic for a nil pointer dereference, a runtime.Error.
func NilDeref() any {
	return RuntimeError{"invalid memory address or nil pointer dereference"}
}

func init() {
	Runtime[rtPath+"/rt"]["NilDeref"] = reflect.ValueOf(NilDeref)
}
