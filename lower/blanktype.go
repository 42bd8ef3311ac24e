package lower

import (
	"go/ast"
	"go/token"
)

// blankTypes drops the declarations of blank types (`type _ T`): they
// declare nothing, and yaegi v0.16.1 refuses them ("cannot use _ as
// value"). The type checker has already checked them.
func (r *rewriter) blankTypes(d *ast.GenDecl) {
	if d.Tok != token.TYPE {
		return
	}
	blank := 0
	for _, s := range d.Specs {
		if s.(*ast.TypeSpec).Name.Name == "_" {
			blank++
		}
	}
	switch {
	case blank == 0:
	case blank == len(d.Specs):
		r.replaceNode(d, "")
	default:
		for _, s := range d.Specs {
			if s.(*ast.TypeSpec).Name.Name == "_" {
				r.replaceNode(s, "")
			}
		}
	}
}
