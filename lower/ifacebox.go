package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// ifaceBox lowers a value of a type the session declares, with methods,
// that becomes an empty interface in a var declaration, an assignment or
// a return (`var y any = s[int]{7}`, `return Nil[b]{}`) to a call of ʟbox,
// which takes and returns an any: yaegi v0.16.1 stores such a value bare,
// and a later assertion or type switch to an interface does not see its
// methods (`interface conversion: struct {} is not main.List[int]: missing
// method Match`); a value passed as an argument is boxed with its type,
// which is what the call does.
func (r *rewriter) ifaceBox(e ast.Expr) {
	target := r.ifaceTarget(e)
	if target == nil {
		return
	}
	it, ok := target.Underlying().(*types.Interface)
	if !ok || !it.Empty() {
		return
	}
	tv := r.code.info.Types[e]
	if tv.Value != nil || tv.IsNil() || tv.IsType() {
		return
	}
	et := r.typeOf(e)
	// A pointer is kept with its methods (and a box would not show the
	// value methods it has).
	if _, ptr := et.(*types.Pointer); ptr || et == nil || types.IsInterface(et) || !r.ctx.declaredType(et) || types.NewMethodSet(et).Len() == 0 {
		return
	}
	r.replaceNode(e, r.boxed(e))
}

// boxed is the text of e passed through ʟbox, declared once per session.
func (r *rewriter) boxed(e ast.Expr) string {
	name := "ʟbox"
	r.ctx.declare(name, func() string { return "func " + name + "(x interface{}) interface{} { return x }" })
	return name + "(" + r.nodeText(e) + ")"
}

// ifaceTarget is the type e is converted to where it is a value of a var
// declaration with a type, of an assignment or a return; nil elsewhere.
// (A conversion's operand is not boxed: the fmt lowerings take its text
// for a typed parameter.)
func (r *rewriter) ifaceTarget(e ast.Expr) types.Type {
	switch p := r.parent().(type) {
	case *ast.ValueSpec:
		if p.Type != nil && len(p.Names) == len(p.Values) {
			for _, v := range p.Values {
				if v == e {
					return r.typeOf(p.Type)
				}
			}
		}
	case *ast.AssignStmt:
		if p.Tok == token.ASSIGN && len(p.Lhs) == len(p.Rhs) {
			for i, v := range p.Rhs {
				if v == e {
					return r.typeOf(p.Lhs[i])
				}
			}
		}
	case *ast.ReturnStmt:
		f := r.fn()
		if f.sig != nil && f.sig.Results().Len() == len(p.Results) {
			for i, v := range p.Results {
				if v == e {
					return substType(f.sig.Results().At(i).Type(), r.subst)
				}
			}
		}
	}
	return nil
}
