package sandbox

import (
	"go/ast"
	"go/token"
)

// The wrappers an expression is run in (tuplePrefix, showMethods) as
// trees around the expression's own parse, for yaegi to compile without
// parsing the wrapped text again. The expression keeps its positions
// (the user's, one line down); the wrapper's own nodes sit on yaegi's
// first line, as the text wrappers' prefixes did.

// expr is the expression of a unit that is one expression statement,
// parsed for yaegi (u.node); else nil.
func (u *unit) expr() ast.Expr {
	if _, ok := u.node.(*ast.BlockStmt); !ok {
		return nil
	}
	if st, ok := u.onlyStmt().(*ast.ExprStmt); ok {
		return st.X
	}
	return nil
}

// tupleBlock is body with x as __rh.Tuple(x): all of x's results.
func tupleBlock(body *ast.BlockStmt, x ast.Expr) *ast.BlockStmt {
	return block(body, tupleCall(body.Lbrace, x.End(), x))
}

// block is a statement block in body's place holding only x.
func block(body *ast.BlockStmt, x ast.Expr) *ast.BlockStmt {
	return &ast.BlockStmt{Lbrace: body.Lbrace, List: []ast.Stmt{&ast.ExprStmt{X: x}}, Rbrace: body.Rbrace}
}

// tupleCall is __rh.Tuple(arg), its name and "(" at at, its ")" at end.
func tupleCall(at, end token.Pos, arg ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: rhName(at, "Tuple"), Lparen: at, Args: []ast.Expr{arg}, Rparen: end}
}

// rhName is __rh.name, the result helper's (tupleExports).
func rhName(at token.Pos, name string) *ast.SelectorExpr {
	return &ast.SelectorExpr{X: &ast.Ident{NamePos: at, Name: "__rh"}, Sel: &ast.Ident{NamePos: at, Name: name}}
}

// showTypes are the result types of showMethods, as trees.
var showTypes = []func(at token.Pos) ast.Expr{
	func(at token.Pos) ast.Expr { return &ast.Ident{NamePos: at, Name: "error"} },
	func(at token.Pos) ast.Expr { return rhName(at, "Stringer") },
}

// showBlock is body with x as showMethods[i] makes it:
// __rh.Tuple(func() T { return (x) }()).
func showBlock(body *ast.BlockStmt, x ast.Expr, i int) *ast.BlockStmt {
	at, end := body.Lbrace, x.End()
	fn := &ast.FuncLit{
		Type: &ast.FuncType{Func: at, Params: &ast.FieldList{Opening: at, Closing: at},
			Results: &ast.FieldList{List: []*ast.Field{{Type: showTypes[i](at)}}}},
		Body: &ast.BlockStmt{Lbrace: at, List: []ast.Stmt{
			&ast.ReturnStmt{Return: at, Results: []ast.Expr{&ast.ParenExpr{Lparen: at, X: x, Rparen: end}}},
		}, Rbrace: end},
	}
	return block(body, tupleCall(at, end, &ast.CallExpr{Fun: fn, Lparen: end, Rparen: end}))
}
