package lower

import "go/ast"

// blankMethod drops a method named _ (`func (s *S) _() {}`): it can never
// be called and is in no method set, but yaegi v0.16.1 counts it, so an
// assertion to an interface of one method the type lacks succeeded. The
// type checker has already checked its body.
func (r *rewriter) blankMethod(d *ast.FuncDecl) {
	if d.Recv != nil && d.Name.Name == "_" {
		r.replaceNode(d, "")
	}
}
