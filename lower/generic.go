package lower

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"sync"
)

// virtualPkgs are the std packages whose API is all generic: the lowering
// replaces every use by monomorphic code and drops their imports.
var virtualPkgs = map[string]bool{"slices": true, "maps": true, "cmp": true, "iter": true}

// genericParts are std packages with some generic API, which the lowering
// instantiates from stdsrc as it does the virtual packages' (the import
// stays: the rest of the package is compiled code).
var genericParts = map[string]bool{"sync": true, "sync/atomic": true}

//go:embed stdsrc/slices/*.go stdsrc/maps/*.go stdsrc/cmp/*.go stdsrc/iter/*.go stdsrc/sync/*.go stdsrc/sync/atomic/*.go
var stdSrcFS embed.FS

const stdSrcPrefix = "lowerstd/" // import path of our implementation of std package P

// site is where a generic function or type is declared.
type site struct {
	code    *code
	decl    ast.Node        // *ast.FuncDecl or *ast.TypeSpec
	methods []*ast.FuncDecl // for a type
	key     string          // stable identity across re-checks
}

// stdSites indexes our implementations of the generic std packages by
// "path.Name" of the real package; checked once per process.
var stdSites = struct {
	once  sync.Once
	sites map[string]*site
	err   error
}{}

func loadStdSites() (map[string]*site, error) {
	stdSites.once.Do(func() {
		stdSites.sites = map[string]*site{}
		fset := token.NewFileSet()
		for _, p := range append(slices.Collect(maps.Keys(virtualPkgs)), slices.Collect(maps.Keys(genericParts))...) {
			files, err := stdSrcFS.ReadDir("stdsrc/" + p)
			if err != nil {
				stdSites.err = err
				return
			}
			var asts []*ast.File
			srcs := map[*token.File][]byte{}
			for _, f := range files {
				if f.IsDir() {
					continue // sync/atomic beside sync
				}
				src, err := stdSrcFS.ReadFile("stdsrc/" + p + "/" + f.Name())
				if err != nil {
					stdSites.err = err
					return
				}
				af, err := parser.ParseFile(fset, f.Name(), src, parser.SkipObjectResolution)
				if err != nil {
					stdSites.err = err
					return
				}
				asts = append(asts, af)
				srcs[fset.File(af.Pos())] = src
			}
			info := newInfo()
			conf := types.Config{Importer: stdOnly{}, GoVersion: "go1.26"}
			if _, err := conf.Check(stdSrcPrefix+p, fset, asts, info); err != nil {
				stdSites.err = fmt.Errorf("std implementation of %s: %w", p, err)
				return
			}
			for _, af := range asts {
				tf := fset.File(af.Pos())
				c := &code{src: srcs[tf], info: info, off: func(pos token.Pos) int { return tf.Offset(pos) }}
				indexSites(stdSites.sites, c, af.Decls, info, func(name string) string { return p + "." + name })
			}
		}
	})
	return stdSites.sites, stdSites.err
}

type stdOnly struct{}

func (stdOnly) Import(path string) (*types.Package, error) { return importStd(path) }

func newInfo() *types.Info {
	return &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Instances:  map[*ast.Ident]types.Instance{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits:  map[ast.Node]types.Object{},
	}
}

// indexSites records the generic declarations among decls under key(name).
func indexSites(sites map[string]*site, c *code, decls []ast.Decl, info *types.Info, key func(string) string) {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Type.TypeParams != nil {
				sites[key(d.Name.Name)] = &site{code: c, decl: d, key: key(d.Name.Name)}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.TypeParams != nil {
					k := key(ts.Name.Name)
					old := sites[k]
					sites[k] = &site{code: c, decl: ts, key: k}
					if old != nil && old.decl == nil {
						sites[k].methods = old.methods
					}
				}
			}
		}
	}
	for _, d := range decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && isGenericDecl(fd) {
			k := key(recvBase(fd))
			if sites[k] == nil {
				sites[k] = &site{key: k}
			}
			sites[k].methods = append(sites[k].methods, fd)
		}
	}
}

// siteOf finds the declaration of a generic object: one of the session's
// cells, or our implementation of a std package.
func (ctx *lowerCtx) siteOf(obj types.Object) *site {
	if ctx.chk.local(obj.Pkg()) {
		if ctx.sites == nil {
			ctx.sites = map[string]*site{}
			for _, c := range ctx.chk.allCells() {
				cd := &code{src: c.src, off: c.offset, info: ctx.chk.infoOf(c), mark: c == ctx.chk.cur && !hasMarks(c.src)}
				idx := c.index
				indexSites(ctx.sites, cd, c.decls, ctx.chk.infoOf(c), func(name string) string { return fmt.Sprintf("main.%d.%s", idx, name) })
			}
		}
		for _, c := range ctx.chk.allCells() {
			if c.contains(obj.Pos()) {
				return ctx.sites[fmt.Sprintf("main.%d.%s", c.index, obj.Name())]
			}
		}
		return nil
	}
	sites, err := loadStdSites()
	if err != nil {
		ctx.fail(err)
		return nil
	}
	p := strings.TrimPrefix(obj.Pkg().Path(), stdSrcPrefix)
	return sites[p+"."+obj.Name()]
}

// ident lowers an identifier: a type parameter in an instance becomes its
// argument, an instantiated generic the name of its instance, and in code
// instantiated away from its cell, a package name the cell's name for it.
func (r *rewriter) ident(n *ast.Ident) bool {
	info := r.code.info
	if inst, ok := info.Instances[n]; ok {
		if obj := info.Uses[n]; obj != nil {
			r.replaceNode(n, r.instanceName(obj, inst.TypeArgs))
		}
		return true
	}
	switch obj := info.Uses[n].(type) {
	case *types.Var:
		if name, ok := r.embeddedInstance(obj); ok {
			r.replaceNode(n, name)
		}
	case *types.TypeName:
		if tp, ok := obj.Type().(*types.TypeParam); ok && r.subst != nil {
			if a, ok := r.subst[tp]; ok {
				r.replaceNode(n, r.ctx.typeExprText(a, nil))
			}
		}
	case *types.PkgName:
		if r.subst != nil && !virtualPkgs[obj.Imported().Path()] {
			r.replaceNode(n, r.ctx.qualify(obj.Imported().Path()))
		}
	}
	return true
}

// embeddedInstance returns the name of the field v in lowered code when v
// is an embedded generic instance, `struct{ *B[string] }`: there the
// field's type, and so its name, is the instance's (s.B, A{B: b}).
func (r *rewriter) embeddedInstance(v *types.Var) (string, bool) {
	if !v.IsField() || !v.Embedded() {
		return "", false
	}
	t := v.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named) // an alias keeps its own name
	if !ok || named.TypeArgs().Len() == 0 || named.Obj().Name() != v.Name() {
		return "", false
	}
	return r.instanceName(named.Origin().Obj(), named.TypeArgs()), true
}

func (r *rewriter) instanceName(obj types.Object, targs *types.TypeList) string {
	args := make([]types.Type, targs.Len())
	for i := range args {
		args[i] = substType(targs.At(i), r.subst)
	}
	return r.ctx.instance(obj, args)
}

// selector lowers pkg.F where F is an instantiated generic.
func (r *rewriter) selector(n *ast.SelectorExpr) {
	if inst, ok := r.code.info.Instances[n.Sel]; ok {
		if obj := r.code.info.Uses[n.Sel]; obj != nil {
			r.replaceNode(n, r.instanceName(obj, inst.TypeArgs))
		}
	}
}

// instantiation lowers F[T] and F[T, U] (explicit type arguments).
func (r *rewriter) instantiation(n ast.Expr, x ast.Expr) {
	id, _ := ast.Unparen(x).(*ast.Ident)
	if sel, ok := ast.Unparen(x).(*ast.SelectorExpr); ok {
		id = sel.Sel
	}
	if id == nil {
		return
	}
	if inst, ok := r.code.info.Instances[id]; ok {
		if obj := r.code.info.Uses[id]; obj != nil {
			r.replaceNode(n, r.instanceName(obj, inst.TypeArgs))
		}
	}
}

// instance returns the name of the monomorphic copy of the generic obj for
// args, declaring it (and what it needs) in the lowered cell unless the
// session already has it.
func (ctx *lowerCtx) instance(obj types.Object, args []types.Type) string {
	if fn, ok := obj.(*types.Func); ok {
		obj = fn.Origin()
	}
	if a, ok := obj.Type().(*types.Alias); ok && a.TypeParams().Len() > 0 {
		// A generic alias is its right-hand side, instantiated.
		return ctx.typeExprText(substType(a.Rhs(), bind(a.TypeParams(), args)), nil)
	}
	st := ctx.siteOf(obj)
	if st == nil || st.decl == nil {
		ctx.fail(fmt.Errorf("no declaration for generic %s", obj.Name()))
		return obj.Name()
	}
	var key strings.Builder
	key.WriteString(st.key + "[")
	for i, a := range args {
		if i > 0 {
			key.WriteString(",")
		}
		key.WriteString(types.TypeString(a, func(p *types.Package) string { return p.Path() }))
	}
	key.WriteString("]")
	at, ok := ctx.localAnchor(args)
	if !ok {
		ctx.fail(fmt.Errorf("generic %s instantiated with a local type of another cell", obj.Name()))
		return obj.Name()
	}
	if at.IsValid() {
		key.WriteString(localKey(args))
	}
	name := "ʟ" + obj.Name() + "_" + shortHash(key.String())
	if fd, isFunc := st.decl.(*ast.FuncDecl); at.IsValid() && isFunc && fd.Recv == nil {
		ctx.declareLocal(at, name, func() (string, string) { return ctx.instantiateLocal(st, args) })
		return name
	}
	ctx.declare(name, func() string { return ctx.instantiate(st, name, args) })
	return name
}

// instantiate writes the declaration of one instance.
func (ctx *lowerCtx) instantiate(st *site, name string, args []types.Type) string {
	info := st.code.info
	switch d := st.decl.(type) {
	case *ast.FuncDecl:
		fn := info.Defs[d.Name].(*types.Func)
		subst := bind(fn.Type().(*types.Signature).TypeParams(), args)
		r := newRewriter(ctx, st.code, subst)
		r.walk(d)
		r.replace(r.off(d.Type.TypeParams.Opening), r.off(d.Type.TypeParams.Closing)+1, "")
		r.replaceNode(d.Name, name)
		return r.nodeText(d)
	case *ast.TypeSpec:
		tn := info.Defs[d.Name].(*types.TypeName)
		subst := bind(tn.Type().(*types.Named).TypeParams(), args)
		r := newRewriter(ctx, st.code, subst)
		r.walk(d)
		r.replace(r.off(d.TypeParams.Opening), r.off(d.TypeParams.Closing)+1, "")
		r.replaceNode(d.Name, name)
		text := "type " + r.nodeText(d)
		for _, m := range st.methods {
			fn, ok := info.Defs[m.Name].(*types.Func)
			if !ok {
				continue
			}
			mr := newRewriter(ctx, st.code, bind(fn.Type().(*types.Signature).RecvTypeParams(), args))
			mr.walk(m)
			recv := m.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			mr.replaceNode(recv, name)
			text += "\n" + mr.nodeText(m)
		}
		return text + ctx.promotedForwarders(tn, args, name) // generic_promote.go
	}
	return ""
}

func bind(tps *types.TypeParamList, args []types.Type) map[*types.TypeParam]types.Type {
	m := map[*types.TypeParam]types.Type{}
	for i := range min(tps.Len(), len(args)) {
		m[tps.At(i)] = args[i]
	}
	return m
}
