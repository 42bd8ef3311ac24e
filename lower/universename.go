package lower

import (
	"go/ast"
	"go/types"
)

// universeName renames a constant, variable or function the code declares
// with the name of a predeclared one (`const append = 1`, `len := 3`,
// `func print()`) to `ʟu_NAME`, at its declaration and every use: yaegi
// v0.16.1 failed on such programs ("CFG post-order panic: index out of
// range"), and the code the front end adds calls the predeclared ones
// (`uint(i)`, `panic(...)`). Fields and methods keep their names (they are
// selected, never shadowing anything), and so do parameters and results. A name an earlier cell declared is
// renamed only if that cell was lowered (the interpreter holds what it ran).
func (r *rewriter) universeName(id *ast.Ident) {
	if types.Universe.Lookup(id.Name) == nil || id.Name == "_" {
		return
	}
	obj := r.code.info.Defs[id]
	if obj == nil {
		obj = r.code.info.Uses[id]
	}
	if obj == nil || obj.Pkg() == nil || obj.Parent() == types.Universe {
		return
	}
	switch o := obj.(type) {
	case *types.Const:
	case *types.Var:
		switch o.Kind() {
		case types.FieldVar, types.ParamVar, types.ResultVar, types.RecvVar:
			return // named results are also written by namedresults.go
		}
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return
		}
	default:
		return
	}
	name := "ʟu_" + id.Name
	global := obj.Parent() == obj.Pkg().Scope()
	if r.ctx.chk.cur.offset(obj.Pos()) < 0 {
		// An earlier cell's: renamed only if that cell was lowered.
		if !global || !r.ctx.s.emitted[name] {
			return
		}
	} else if global {
		// Later cells must say ʟu_NAME too: every one is lowered from now.
		r.ctx.added = append(r.ctx.added, name, universeMarker)
	}
	r.replaceNode(id, name)
}

// universeMarker is emitted by a cell that renamed a package-level name.
const universeMarker = "ʟuniverseNames"

// RenamedPredeclared reports whether a committed cell declared, at
// package level, a name of a predeclared one, which the front end renames:
// every later cell must be lowered, so its uses say the new name.
func (s *Session) RenamedPredeclared() bool { return s.emitted[universeMarker] }
