package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
)

// The incremental check: a committed cell's package-level objects, once
// type-checked, are kept, and a new cell is checked alone in a fresh
// package "main" whose scope holds the committed objects of the names it
// mentions, minus those it redeclares. go/types takes an object that
// already has a type as it is, and compares unexported names by package
// path, so the earlier cells' packages (all "main") are one package to it.
// A cell costs its own check, not that of every cell it depends on. The
// lowering sees the same scope and cells as with checkFull: the rest of
// the cells the cell depends on (s.relevant) are added when it asks for
// them (allCells, scope), which only a few rewrites do.
//
// Where that model could answer differently from checkFull's (the
// reference), checkFull decides:
//   - any error: the error and its text are the whole model's (go/types
//     would qualify the earlier cells' types as main.T);
//   - a method on a type of an earlier cell (go/types attaches methods only
//     while checking the type's own declaration);
//   - a redeclared name that an earlier declaration mentions (that
//     declaration, and its type, would now see the new one);
//   - a panic inside go/types.
//
// A committed cell that was not checked alone (checkFull decided, or it was
// not lowered at all) is checked alone before the next cell; if it cannot
// be, the kept objects no longer describe the session, and are rebuilt
// from one check of every committed cell.

// incremental is the state the incremental check keeps across cells.
type incremental struct {
	typed   []cellTypes             // per committed cell, in order; valid unless stale
	byName  map[string]types.Object // name → the object of its last declaration
	pending []*cell                 // committed cells not yet checked alone
	// srcStamps are the stamps of the uploaded packages the kept objects
	// were checked with (srcChanged).
	srcStamps map[string]string
	stale     bool // typed and byName need a rebuild
	// mentioned: the names that a committed declaration (other than the
	// one declaring that name) mentions; inBodies: those that only the
	// bodies of non-generic functions mention.
	mentioned, inBodies map[string]bool
	// pkgs are the packages of the kept objects: one per committed cell
	// checked alone since the last rebuild, and the rebuild's.
	pkgs map[*types.Package]bool
	// checks and alone count the checks and those done incrementally;
	// rebuilds the rebuilds.
	checks, alone, rebuilds int
}

// cellTypes is what a committed cell's check left: its package-level
// objects and, if it declares generics, its types.Info (generic.go
// instantiates generic declarations from their own cell's info).
type cellTypes struct {
	objs []types.Object
	info *types.Info
}

func newIncremental() incremental {
	return incremental{byName: map[string]types.Object{}, srcStamps: map[string]string{}, mentioned: map[string]bool{}, inBodies: map[string]bool{}, pkgs: map[*types.Package]bool{}}
}

// commit records committed cell c, checked as chk (nil: not checked).
// A cell not checked alone waits in pending: the next check checks it
// alone first (the interpreter runs many cells the front end does not
// lower, and checking them only when a lowered cell comes costs them
// nothing before).
func (inc *incremental) commit(c *cell, chk *checked) {
	if chk == nil || !chk.incremental || chk.passthrough {
		inc.pending = append(inc.pending, c)
		inc.typed = append(inc.typed, cellTypes{})
		return
	}
	inc.typed = append(inc.typed, cellTypes{})
	inc.record(c, chk)
}

// record keeps what the check chk of cell c (alone) made.
func (inc *incremental) record(c *cell, chk *checked) {
	for _, d := range c.allDecls() {
		inc.noteMentions(d, chk.info)
	}
	t := typesOf(c, chk.pkg, chk.info, nil)
	for _, o := range t.objs {
		inc.byName[o.Name()] = o
	}
	inc.typed[c.index] = t
	inc.pkgs[chk.pkg] = true
}

// catchUp checks the pending cells alone, in order; when one cannot be,
// it rebuilds every cell's objects instead. Many pending cells (a session
// restored from its journal before :type) are one rebuild: cheaper than as
// many checks.
func (s *Session) catchUp() bool {
	if len(s.inc.pending) > maxPending || s.srcChanged() {
		s.inc.stale = true
	}
	for len(s.inc.pending) > 0 && !s.inc.stale {
		p := s.syntax(s.inc.pending[0])
		chk := s.checkAlone(p)
		if chk == nil {
			s.inc.stale = true
			break
		}
		s.inc.record(p, chk)
		s.inc.pending = s.inc.pending[1:]
	}
	return !s.inc.stale || s.rebuild()
}

// srcChanged reports whether an uploaded package the session imported
// has changed on disk since: the kept objects refer to its old types, and
// the whole model would see the new ones in every cell, so they are
// rebuilt. (A stat of each such package per check; none without uploads.)
func (s *Session) srcChanged() bool {
	if len(s.src.cache) == 0 {
		return false
	}
	changed := false
	for path, c := range s.src.cache {
		old, seen := s.inc.srcStamps[path]
		if !seen {
			s.inc.srcStamps[path] = c.stamp
			continue
		}
		_, now := goFiles(filepath.Join(s.opts.Classes, "src", filepath.FromSlash(path)))
		changed = changed || now != old
	}
	return changed
}

// maxPending is the number of pending cells above which catchUp rebuilds.
const maxPending = 64

// typesOf collects the objects cell c declares in pkg (only the names
// owned says it still owns, if not nil).
func typesOf(c *cell, pkg *types.Package, info *types.Info, owned func(string) bool) cellTypes {
	var t cellTypes
	generic := false
	for _, d := range c.allDecls() {
		generic = generic || isGenericDecl(d) || declaresGenericType(d)
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			continue
		}
		for _, n := range declNames(d) {
			if owned != nil && !owned(n) {
				continue
			}
			if o := pkg.Scope().Lookup(n); o != nil && o.Pkg() == pkg {
				t.objs = append(t.objs, o)
			}
		}
	}
	if generic {
		t.info = info
	}
	return t
}

func declaresGenericType(d ast.Decl) bool {
	if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
		for _, s := range g.Specs {
			if s.(*ast.TypeSpec).TypeParams != nil {
				return true
			}
		}
	}
	return false
}

// noteMentions records the names declaration d of a committed cell
// mentions, other than those each spec of it declares: with info, only
// identifiers that resolve to a package-level, imported or predeclared
// object (a local variable is no dependency); the bodies of non-generic
// functions apart, in inc.inBodies.
func (inc *incremental) noteMentions(d ast.Decl, info *types.Info) {
	note := func(m map[string]bool, n ast.Node, own map[string]bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || own[id.Name] {
				return true
			}
			if info != nil {
				if o := info.Uses[id]; o == nil || !nonLocal(o) {
					return true
				}
			}
			m[id.Name] = true
			return true
		})
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		own := map[string]bool{}
		if d.Recv == nil {
			own[d.Name.Name] = true
		}
		if d.Recv != nil {
			note(inc.mentioned, d.Recv, own)
		}
		note(inc.mentioned, d.Type, own)
		if isGenericDecl(d) {
			note(inc.mentioned, d.Body, own)
		} else if d.Body != nil {
			note(inc.inBodies, d.Body, own)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			own := map[string]bool{}
			switch s := s.(type) {
			case *ast.TypeSpec:
				own[s.Name.Name] = true
			case *ast.ValueSpec:
				for _, n := range s.Names {
					own[n.Name] = true
				}
			}
			note(inc.mentioned, s, own)
		}
	}
}

// nonLocal reports whether o is found by name outside any function: a
// package-level, imported or predeclared object.
func nonLocal(o types.Object) bool {
	if _, ok := o.(*types.PkgName); ok {
		return true
	}
	p := o.Parent()
	return p == types.Universe || o.Pkg() != nil && p == o.Pkg().Scope()
}

// incrementalOK reports whether cell c may be checked alone: it declares
// methods only on its own types and redeclares no name an earlier
// declaration mentions. A name only earlier function bodies use matters
// when the cell declares two variables or more: their initialisation order
// may go through those functions.
func (s *Session) incrementalOK(c *cell, own map[string]bool) bool {
	types := map[string]bool{}
	for _, d := range c.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				types[sp.(*ast.TypeSpec).Name.Name] = true
			}
		}
	}
	for _, d := range c.decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && !types[recvBase(fd)] {
			return false
		}
	}
	vars := 0
	for _, d := range c.allDecls() {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, sp := range g.Specs {
				vars += len(sp.(*ast.ValueSpec).Names)
			}
		}
	}
	for n := range own {
		if s.inc.mentioned[n] || vars > 1 && s.inc.inBodies[n] {
			return false
		}
	}
	return true
}

// checkIncremental checks cell c alone against the committed cells'
// objects; nil when checkFull must decide.
func (s *Session) checkIncremental(c *cell) *checked {
	if !s.catchUp() {
		return nil
	}
	chk := s.checkAlone(c)
	if chk != nil {
		s.inc.alone++
	}
	return chk
}

// checkAlone checks cell c (the current one, or the first pending one)
// against the objects of the cells before it.
func (s *Session) checkAlone(c *cell) (chk *checked) {
	own := map[string]bool{}
	for _, d := range c.allDecls() {
		for _, n := range declNames(d) {
			own[n] = true
		}
	}
	if !s.incrementalOK(c, own) {
		return nil
	}
	pkg := types.NewPackage("main", "main")
	scope := pkg.Scope()
	for n := range c.mentioned(true) {
		if o := s.inc.byName[n]; o != nil && !own[n] {
			scope.Insert(o)
		}
	}
	info := newInfo()
	failed := false
	conf := types.Config{
		Importer:  s.src,
		GoVersion: "go1.26",
		Error: func(err error) {
			if e, ok := err.(types.Error); !ok || !c.contains(e.Pos) || !ignorable(c, e) {
				failed = true
			}
		},
	}
	defer func() {
		if recover() != nil {
			chk = nil // go/types met a case it does not expect: checkFull decides
		}
	}()
	files := s.modelFiles([]*cell{c}, c, false)
	_ = types.NewChecker(&conf, s.fileSetOf([]*cell{c}), pkg, info).Files(files) // errors: through conf.Error
	if failed {
		return nil
	}
	chk = &checked{cur: c, pkg: pkg, info: info, sessionFmt: s.index.fmtMethods,
		incremental: true, pkgs: s.inc.pkgs, typed: s.inc.typed}
	chk.complete = func() {
		rel := s.relevant(c)
		for _, x := range rel {
			for _, o := range s.inc.typed[x.index].objs {
				if !own[o.Name()] && s.index.owner[o.Name()] == x.index && scope.Lookup(o.Name()) == nil {
					scope.Insert(o)
				}
			}
		}
		chk.cells = append(rel, c)
	}
	return chk
}

// rebuild re-creates the objects of every committed cell from one check of
// them all (errors in committed cells do not count, as in checkFull).
func (s *Session) rebuild() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	s.inc.rebuilds++
	cells := s.withSyntax(s.cells)
	files := s.modelFiles(cells, nil, true)
	info := newInfo()
	conf := types.Config{Importer: s.src, GoVersion: "go1.26", Error: func(error) {}}
	pkg, _ := conf.Check("main", s.fileSetOf(cells), files, info)
	for _, p := range s.inc.pending {
		for _, d := range cells[p.index].allDecls() {
			s.inc.noteMentions(d, nil) // syntactic: info has no function bodies
		}
	}
	s.inc.pending = nil
	clear(s.inc.byName)
	for i, x := range cells {
		s.inc.typed[i] = typesOf(x, pkg, info, func(n string) bool { return s.index.owner[n] == i })
		for _, o := range s.inc.typed[i].objs {
			s.inc.byName[o.Name()] = o
		}
	}
	clear(s.inc.srcStamps)
	for path := range s.src.cache {
		_, s.inc.srcStamps[path] = goFiles(filepath.Join(s.opts.Classes, "src", filepath.FromSlash(path)))
	}
	clear(s.inc.pkgs) // no kept object is of an earlier package any more
	s.inc.pkgs[pkg] = true
	s.inc.stale = false
	return true
}

// withoutBody returns d without its body when it is a non-generic function.
func withoutBody(d ast.Decl) ast.Decl {
	fd, ok := d.(*ast.FuncDecl)
	if !ok || fd.Body == nil || isGenericDecl(fd) {
		return d
	}
	cp := *fd
	cp.Body = nil
	return &cp
}

// local reports whether p is the session's package: the current cell's or
// an earlier cell's (the incremental check's objects keep the package of
// the check that made them).
func (c *checked) local(p *types.Package) bool {
	return p != nil && (p == c.pkg || c.pkgs[p])
}

// allCells returns the cells the lowering may look into: those the
// current cell can depend on, and itself last.
func (c *checked) allCells() []*cell {
	if c.complete != nil {
		c.complete()
		c.complete = nil
	}
	return c.cells
}

// scope returns the package scope of the check, with every name of the
// cells the current one can depend on.
func (c *checked) scope() *types.Scope {
	c.allCells()
	return c.pkg.Scope()
}

// infoOf returns the types.Info that describes cell x of c.cells.
func (c *checked) infoOf(x *cell) *types.Info {
	if c.incremental && x != c.cur && x.index < len(c.typed) {
		if info := c.typed[x.index].info; info != nil {
			return info
		}
	}
	return c.info
}
