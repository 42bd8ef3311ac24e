package lower

import "go/ast"

// nameParams names the unnamed parameters of a function with a body
// (`func (s *S) M(int) (int, int)`) `_`: yaegi v0.16.1 gives them no
// frame slot but counts them, so the function's other variables were off
// by one (`s.a = true` panicked with "reflect.Set: value of type int is
// not assignable to type bool").
func (r *rewriter) nameParams(ft *ast.FuncType) {
	if ft.Params == nil {
		return
	}
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			r.insert(r.off(f.Type.Pos()), "_ ")
		}
	}
}
