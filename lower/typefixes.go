package lower

import "go/ast"

// typeFixes is the post-order hook of the lowerings around yaegi's
// handling of types: self-referential types (selffunc.go, selfptr.go,
// selfslice.go), blank names (blankfields.go, blanktype.go, blankmethod.go), fields that
// shadow methods (shadowfield.go), the any alias (anyalias.go), values
// assigned across types (varmulti.go, elidedaddr.go, appendiface.go),
// map keys (mapkey.go, instkeys.go), literals among several values
// (multilit.go), directed channels made (makechan.go), calls on a conversion to an
// interface (ifacecall.go), comma-ok values converted (commaokconv.go), literals and
// conversions to interfaces (ifacelit.go), a lone slice
// passed to a variadic parameter (variadicslice.go), methods promoted from
// embedded interfaces (ifacepromote.go). It runs after the other rewrites of
// the node, so it adapts what they wrote.
func (r *rewriter) typeFixes(n ast.Node) {
	switch n := n.(type) {
	case *ast.Ident:
		r.anyAlias(n)
	case *ast.StructType:
		r.blankFields(n)
		r.shadowFieldDecl(n)
		r.jsonUnexported(n) // see jsonfields.go
	case *ast.SelectorExpr:
		r.shadowFieldUse(n)
		r.ifaceConvCall(n)
	case *ast.GenDecl:
		r.blankTypes(n)
		r.ifacePromote(n)
	case *ast.FuncDecl:
		r.blankMethod(n)
	case *ast.CompositeLit:
		r.elidedAddr(n)
		r.blankFieldValues(n)
		r.mapLitKeys(n)
		r.shadowFieldKeys(n)
		r.instanceKeys(n)
		r.multiAssignLit(n) // last: it wraps what the others wrote
	case *ast.IndexExpr:
		r.mapKey(n)
	case *ast.ValueSpec:
		r.varMulti(n)
		r.ifaceLitSpec(n)
	case *ast.AssignStmt:
		r.commaOKConv(n)
		r.ifaceLitAssign(n)
	case *ast.CallExpr:
		r.appendIface(n)
		r.deleteKey(n)
		r.makeDirChan(n)
		r.ifaceConvArg(n)
		r.ifaceConv(n)
		r.ifaceVariadic(n)
		r.variadicSlice(n)
	}
	if e, ok := n.(ast.Expr); ok {
		r.ifaceCopy(e) // see ifacecopy.go
		r.ifaceBox(e)  // see ifacebox.go
		r.keepValue(e) // see keepvalue.go
		r.ifaceCopyKept(e)
		r.tagValue(e) // see fmttag.go
	}
	r.selfFuncs(n)
}
