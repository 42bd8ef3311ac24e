package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// varFacts records, for the variables of a piece of code, which ones may
// outlive an iteration (captured by a closure, address taken) and where
// each is assigned. yaegi shares one variable across all iterations of a
// loop (Go before 1.22); a loop whose variables are captured gets a
// per-iteration copy, as Go 1.22 specifies.
type varFacts struct {
	captured map[types.Object]bool
	assigned map[types.Object][]token.Pos
}

func collectFacts(info *types.Info, root ast.Node) *varFacts {
	f := &varFacts{captured: map[types.Object]bool{}, assigned: map[types.Object][]token.Pos{}}
	var lits []*ast.FuncLit
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if id := rootIdent(n.X); id != nil {
					f.captured[info.Uses[id]] = true
				}
			}
		case *ast.SelectorExpr:
			// x.M() with a pointer receiver takes &x.
			if sel := info.Selections[n]; sel != nil && sel.Kind() != types.FieldVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, ptr := sig.Recv().Type().Underlying().(*types.Pointer); ptr {
						if id := rootIdent(n.X); id != nil {
							f.captured[info.Uses[id]] = true
						}
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					if id := rootIdent(l); id != nil {
						o := info.Uses[id]
						f.assigned[o] = append(f.assigned[o], n.Pos())
					}
				}
			}
		case *ast.IncDecStmt:
			if id := rootIdent(n.X); id != nil {
				o := info.Uses[id]
				f.assigned[o] = append(f.assigned[o], n.Pos())
			}
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if o, ok := info.Uses[id].(*types.Var); ok && !o.IsField() && (o.Pos() < lit.Pos() || o.Pos() > lit.End()) {
					f.captured[o] = true
				}
			}
			return true
		})
	}
	return f
}

// rootIdent returns the variable an addressable expression starts from
// (x in x, x.f, x[i] of an array), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// assignedIn reports whether o is assigned inside n.
func (f *varFacts) assignedIn(o types.Object, n ast.Node) bool {
	for _, p := range f.assigned[o] {
		if p >= n.Pos() && p < n.End() {
			return true
		}
	}
	return false
}

// loopVarFor gives each iteration of a three-clause loop its own copy of
// the loop variables a closure captures, when the body does not assign
// them (a body that does would need the copy carried back; left as is).
// The header's variable is renamed and the body declares the user's name:
// yaegi resolves `i := i` in the body to the loop's own variable.
func (r *rewriter) loopVarFor(n *ast.ForStmt) {
	as, ok := n.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return
	}
	var copies []string
	for _, l := range as.Lhs {
		id, _ := l.(*ast.Ident)
		if id == nil || id.Name == "_" {
			continue
		}
		o := r.code.info.Defs[id]
		if o == nil || !r.facts.captured[o] || r.facts.assignedIn(o, n.Body) {
			continue
		}
		hidden := r.ctx.name("v")
		for _, part := range []ast.Node{n.Init, n.Cond, n.Post} {
			if part == nil {
				continue
			}
			ast.Inspect(part, func(x ast.Node) bool {
				if x, ok := x.(*ast.Ident); ok && (r.code.info.Defs[x] == o || r.code.info.Uses[x] == o) {
					r.replaceNode(x, hidden)
				}
				return true
			})
		}
		copies = append(copies, " "+id.Name+" := "+hidden+";")
	}
	if len(copies) > 0 {
		r.insert(r.off(n.Body.Lbrace)+1, strings.Join(copies, ""))
	}
}

// loopVarRange gives each iteration of a range loop its own copy of the
// key and value variables a closure captures.
func (r *rewriter) loopVarRange(n *ast.RangeStmt) {
	if n.Tok != token.DEFINE {
		return
	}
	var copies []string
	for _, e := range []ast.Expr{n.Key, n.Value} {
		id, _ := e.(*ast.Ident)
		if id == nil || id.Name == "_" {
			continue
		}
		if o := r.code.info.Defs[id]; o != nil && r.facts.captured[o] {
			hidden := r.ctx.name("v")
			r.replaceNode(id, hidden)
			copies = append(copies, " "+id.Name+" := "+hidden+";")
		}
	}
	if len(copies) > 0 {
		r.insert(r.off(n.Body.Lbrace)+1, strings.Join(copies, ""))
	}
}

func (f *varFacts) merge(g *varFacts) {
	for o := range g.captured {
		f.captured[o] = true
	}
	for o, ps := range g.assigned {
		f.assigned[o] = append(f.assigned[o], ps...)
	}
}
