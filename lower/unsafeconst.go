package lower

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"github.com/replhost/replhost/internal/pkgname"
)

// unsafe.Sizeof, Alignof and Offsetof are constants of type uintptr in Go,
// computed by the compiler from the type's layout; they read no memory. A
// session's interpreter has no package unsafe (unless Options.KeepUnsafe),
// so the lowering writes each such call as its value, `uintptr(N)`, and
// drops an import of unsafe that nothing else uses: the interpreter never
// sees the package. Every other use of unsafe (Pointer, Add, Slice,
// String, StringData, SliceData, a dot import) is refused with an
// *UnsafeError before the cell is type-checked.
//
// The sizes are gc's on amd64 (go/types' default Sizes, what `go run`
// prints), not those of the interpreter's reflect types. Inside an instance
// of a generic declaration, where the operand's type depends on a type
// parameter (so Go computes the value per instance), it is computed from
// the substituted type.

// UnsafeError is returned for a cell that uses package unsafe beyond the
// constants Sizeof, Alignof and Offsetof while the interpreter has none
// (Options.KeepUnsafe false): at the cell's import of unsafe, or, for a
// cell that uses an earlier cell's import, at the first such use.
type UnsafeError struct {
	Line, Col int
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%d:%d: package unsafe used beyond Sizeof, Alignof and Offsetof", e.Line, e.Col)
}

// gcSizes is the layout `go run` uses on linux/amd64.
var gcSizes = types.SizesFor("gc", "amd64")

// unsafeConstFuncs are the members of unsafe the lowering writes as values.
var unsafeConstFuncs = map[string]bool{"Sizeof": true, "Alignof": true, "Offsetof": true}

// refuseUnsafe returns an *UnsafeError if cell c uses unsafe for anything
// but its constants. It is syntactic (a name of an import of unsafe used
// other than as `name.Sizeof(` ...), so it runs before the type check, as
// the interpreter's refusal of the import did: a local that shadows the
// package's name is refused too, which errs on the safe side.
func (s *Session) refuseUnsafe(c *cell) error {
	if s.opts.KeepUnsafe {
		return nil
	}
	names := map[string]bool{}
	for name, path := range c.importSet {
		if path == "unsafe" {
			names[name] = true
		}
	}
	var at token.Pos // the cell's own import of unsafe
	for _, d := range c.imports {
		for _, sp := range d.Specs {
			sp := sp.(*ast.ImportSpec)
			if path, _ := strconv.Unquote(sp.Path.Value); path != "unsafe" {
				continue
			}
			if !at.IsValid() {
				at = sp.Path.Pos()
			}
			if n := pkgname.Of(sp, nil); n == "." {
				return s.unsafeError(at) // its members would be unqualified
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	folded := map[*ast.Ident]bool{} // the X of unsafe.Sizeof(...) calls
	var bad token.Pos
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && unsafeConstFuncs[sel.Sel.Name] {
				if id, ok := sel.X.(*ast.Ident); ok {
					folded[id] = true
				}
			}
		case *ast.Ident:
			if names[n.Name] && !folded[n] && !bad.IsValid() && c.contains(n.Pos()) {
				bad = n.Pos()
			}
		}
		return !bad.IsValid()
	}
	for _, d := range c.allDecls() {
		ast.Inspect(d, visit)
	}
	if c.body != nil {
		ast.Inspect(c.body, visit)
	}
	if !bad.IsValid() {
		return nil
	}
	if at.IsValid() {
		bad = at
	}
	return s.unsafeError(bad)
}

func (s *Session) unsafeError(p token.Pos) error {
	pos := s.fset.Position(p)
	return &UnsafeError{Line: pos.Line, Col: pos.Column}
}

// dropsImport reports an import the lowered cell leaves out: a package the
// lowering replaces (generic.go), or unsafe, whose uses it writes as
// values (refuseUnsafe refused the cell if it had others).
func (ctx *lowerCtx) dropsImport(path string) bool {
	return virtualPkgs[path] || path == "unsafe" && !ctx.s.opts.KeepUnsafe
}

// unsafeConst writes unsafe.Sizeof(x), Alignof(x) or Offsetof(x.f) as its
// value; it reports whether to visit the call's children (not when it is
// replaced: its operand is not evaluated, in Go either).
func (r *rewriter) unsafeConst(n *ast.CallExpr) bool {
	if r.ctx.s.opts.KeepUnsafe || len(n.Args) != 1 {
		return true
	}
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok || !unsafeConstFuncs[sel.Sel.Name] {
		return true
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return true
	}
	if pn, ok := r.code.info.Uses[id].(*types.PkgName); !ok || pn.Imported().Path() != "unsafe" {
		return true
	}
	v, ok := r.unsafeValue(n, sel.Sel.Name)
	if !ok {
		r.ctx.fail(fmt.Errorf("unsafe.%s of a type the lowering cannot lay out", sel.Sel.Name))
		return true
	}
	text := "uintptr(" + strconv.FormatInt(v, 10) + ")"
	if r.code.info.Types[n].Value == nil {
		// Not a constant in Go (it depends on a type parameter): a
		// variable, so that `1 / unsafe.Sizeof(x)` of a zero size panics
		// at run time and a shift or a sum wraps as Go's do, instead of
		// failing as a constant expression.
		name := "ʟuintptr_" + strconv.FormatInt(v, 10)
		r.ctx.declare(name, func() string { return "var " + name + " = " + text })
		text = name
	}
	r.replaceNode(n, text)
	return false
}

// unsafeValue computes unsafe.<fn>(arg): go/types' constant, or in an
// instance of a generic declaration, the layout of the substituted types.
func (r *rewriter) unsafeValue(call *ast.CallExpr, fn string) (int64, bool) {
	if v := r.code.info.Types[call].Value; v != nil {
		return constant.Int64Val(v)
	}
	if r.subst == nil {
		return 0, false // no instance: a type parameter's layout is unknown
	}
	arg := call.Args[0]
	switch fn {
	case "Sizeof", "Alignof":
		t := substType(r.code.info.TypeOf(arg), r.subst)
		if t == nil || mentionsTypeParam(t) {
			return 0, false
		}
		if fn == "Sizeof" {
			return gcSizes.Sizeof(t), true
		}
		return gcSizes.Alignof(t), true
	case "Offsetof":
		sel, ok := ast.Unparen(arg).(*ast.SelectorExpr)
		if !ok {
			return 0, false
		}
		s := r.code.info.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return 0, false
		}
		t := substType(r.code.info.TypeOf(sel.X), r.subst)
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		var off int64
		for _, i := range s.Index() {
			st, ok := t.Underlying().(*types.Struct)
			if !ok || mentionsTypeParam(st) {
				return 0, false
			}
			fields := make([]*types.Var, st.NumFields())
			for k := range fields {
				fields[k] = st.Field(k)
			}
			off += gcSizes.Offsetsof(fields)[i]
			t = st.Field(i).Type()
		}
		return off, true
	}
	return 0, false
}

// mentionsTypeParam reports whether t still mentions a type parameter.
func mentionsTypeParam(t types.Type) bool {
	found := false
	var visit func(types.Type, int)
	visit = func(t types.Type, depth int) {
		if found || depth > 32 {
			return
		}
		switch x := types.Unalias(t).(type) {
		case *types.TypeParam:
			found = true
		case *types.Pointer:
			visit(x.Elem(), depth+1)
		case *types.Slice:
			visit(x.Elem(), depth+1)
		case *types.Array:
			visit(x.Elem(), depth+1)
		case *types.Map:
			visit(x.Key(), depth+1)
			visit(x.Elem(), depth+1)
		case *types.Chan:
			visit(x.Elem(), depth+1)
		case *types.Struct:
			for i := range x.NumFields() {
				visit(x.Field(i).Type(), depth+1)
			}
		case *types.Named:
			for i := range x.TypeArgs().Len() {
				visit(x.TypeArgs().At(i), depth+1)
			}
		}
	}
	visit(t, 0)
	return found
}
