package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/pkgname"
)

// Options configures a Session. The zero value type-checks against the
// standard library only.
type Options struct {
	// Classes is the session's GOPATH-like directory: <Classes>/src/P holds an
	// uploaded source package importable as "P". Empty means none.
	Classes string
	// Importer, if set, is asked for packages that are neither in the
	// standard library nor under Classes (e.g. host-provided packages such as
	// "udf"). Nil means there are none.
	Importer types.Importer
	// KeepUnsafe says the interpreter provides package unsafe: its uses
	// are left to it. False means it has none: unsafe's constants are
	// written as values and any other use is an *UnsafeError (unsafeconst.go).
	KeepUnsafe bool
}

// Error is a type or syntax error in a cell, at the user's line and column
// (1-based) of the cell, with go/types' (or go/parser's) message.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Session is the type-checking context of one REPL session: the cells that
// ran so far. It is not safe for concurrent use.
type Session struct {
	opts    Options
	fset    *token.FileSet
	cells   []*cell         // committed cells, in order
	emitted map[string]bool // helper and instance declarations the interpreter holds
	src     *srcImporter
	last    *lowered // result of the last Lower, for Commit
	index   sessionIndex
	inc     incremental // the committed cells' checked objects (incremental.go)
	// fullOnly makes every check the whole-model one: the reference the
	// incremental check is tested against.
	fullOnly bool
}

// lowered is what Lower produced for one cell.
type lowered struct {
	src     string
	cell    *cell
	chk     *checked
	emitted []string
	calls   map[string]bool // the calls `ʟstmtN()` of statements run in a function (Plan)
}

// NewSession returns an empty session.
func NewSession(opts Options) *Session {
	s := &Session{opts: opts}
	s.Reset()
	return s
}

// Reset forgets every cell, as after `:reset` (a fresh interpreter).
func (s *Session) Reset() {
	s.fset = token.NewFileSet()
	s.cells = nil
	s.emitted = map[string]bool{}
	s.src = newSrcImporter(s.opts)
	s.last = nil
	s.index = newSessionIndex()
	s.inc = newIncremental()
}

// Commit records that cell ran successfully: it becomes context for the
// next cells, and the declarations its lowering added are known to exist.
func (s *Session) Commit(cell string) {
	if s.last != nil && s.last.src == cell && s.last.cell != nil {
		s.inc.commit(s.last.cell, s.last.chk)
		s.index.add(len(s.cells), s.last.cell)
		s.cells = append(s.cells, s.last.cell)
		s.settle(s.last.cell)
		for _, n := range s.last.emitted {
			s.emitted[n] = true
		}
		s.last = nil
		return
	}
	if s.last != nil {
		s.forget(s.last.cell)
		s.last = nil
	}
	c, err := parseCell(s.fset, len(s.cells), cell, s.importSet())
	if err != nil {
		return // a cell that does not parse declares nothing we can use
	}
	s.inc.commit(c, nil)
	s.index.add(len(s.cells), c)
	s.cells = append(s.cells, c)
	s.settle(c)
}

func (s *Session) importSet() map[string]string {
	if len(s.cells) == 0 {
		return nil
	}
	return s.cells[len(s.cells)-1].importSet
}

// Lower type-checks cell in the session's context and returns the code to
// give the interpreter: cell itself when nothing needs rewriting. A type
// error is returned as *Error. Cells the model cannot judge (an import it
// cannot resolve) are returned unchanged, for the interpreter to decide.
func (s *Session) Lower(cellSrc string) (string, error) {
	out, _, err := s.LowerMap(cellSrc)
	return out, err
}

// LowerMap is Lower that also returns the map from positions in the code
// it returns back to the user's cell, for the interpreter's errors (nil
// when the code is the cell itself). An error that is not an *Error is a
// limitation of the front end: the cell may still run as typed.
func (s *Session) LowerMap(cellSrc string) (out string, m *SourceMap, err error) {
	defer func() {
		// A bug here must not end the host process with every session.
		if p := recover(); p != nil {
			out, m, err = "", nil, fmt.Errorf("lower: internal error: %v", p)
		}
	}()
	if s.last != nil {
		s.forget(s.last.cell) // not committed
		s.last = nil
	}
	c, err := parseCell(s.fset, len(s.cells), cellSrc, s.importSet())
	if err != nil {
		return "", nil, err
	}
	if err := s.refuseUnsafe(c); err != nil {
		return "", nil, err
	}
	s.last = &lowered{src: cellSrc, cell: c}
	chk, err := s.check(c)
	if err != nil {
		return "", nil, err
	}
	s.last.chk = chk
	if chk.passthrough {
		return cellSrc, nil, nil
	}
	out, m, emitted, err := lowerCell(s, chk)
	if err != nil {
		return "", nil, err
	}
	s.last.emitted = emitted
	return out, m, nil
}

// checked is the result of type-checking the session plus one cell.
type checked struct {
	cur         *cell
	cells       []*cell // the cells checked, the current one last (allCells)
	pkg         *types.Package
	info        *types.Info
	passthrough bool
	fmtMethods  int  // declaresFmtMethods: 0 not computed, 1 yes, -1 no
	sessionFmt  bool // a committed cell declares String or Error
	// incremental says only cur was checked, against the committed cells'
	// objects (incremental.go): those belong to the packages in pkgs, and
	// the info of an earlier cell is its own check's, in typed.
	incremental bool
	pkgs        map[*types.Package]bool
	typed       []cellTypes
	complete    func() // incremental: fills cells and the scope (allCells)
}

// check type-checks the current cell in the session's context: against the
// committed cells' objects where that gives the same answer, else (and for
// every error) the whole model of checkFull.
func (s *Session) check(c *cell) (*checked, error) {
	s.inc.checks++
	if !s.fullOnly {
		if chk := s.checkIncremental(c); chk != nil {
			return chk, nil
		}
	}
	return s.checkFull(c)
}

// checkFull type-checks the committed cells' declarations together with the
// current cell. Later declarations of a name replace earlier ones, as at the
// REPL. Only errors inside the current cell count.
func (s *Session) checkFull(c *cell) (*checked, error) {
	all := append(s.withSyntax(s.relevant(c)), c)
	files := s.modelFiles(all, c, false)
	info := newInfo()
	var errs []types.Error
	conf := types.Config{
		Importer:  s.src,
		GoVersion: "go1.26",
		Error: func(err error) {
			if e, ok := err.(types.Error); ok && c.contains(e.Pos) && !ignorable(c, e) {
				errs = append(errs, e)
			}
		},
	}
	pkg, _ := conf.Check("main", s.fileSetOf(all), files, info)
	chk := &checked{cur: c, cells: all, pkg: pkg, info: info, sessionFmt: s.index.fmtMethods}
	for _, e := range errs {
		if strings.Contains(e.Msg, "could not import") {
			chk.passthrough = true
			return chk, nil
		}
	}
	if len(errs) > 0 {
		p := s.fset.Position(errs[0].Pos)
		return nil, &Error{Line: p.Line, Col: p.Column, Msg: errs[0].Msg}
	}
	return chk, nil
}

// modelFiles builds the type-checking model of cells all (in session
// order, each with its syntax; c, if not nil, the current one and last):
// one file per cell, with the declarations a later cell replaces left out.
// strip leaves out the bodies of non-generic functions of committed cells
// (no object's type depends on them).
func (s *Session) modelFiles(all []*cell, c *cell, strip bool) []*ast.File {
	pos := make(map[int]int, len(all)) // cell index → position in all
	for i, x := range all {
		pos[x.index] = i
	}
	// owner: declared name → position in all of the last cell declaring it
	// in the whole session; -1 when that cell was left out (a declaration
	// it replaced is dropped all the same).
	owner := map[string]int{}
	for _, x := range all {
		if x == c {
			continue
		}
		for _, d := range x.allDecls() {
			for _, n := range declNames(d) {
				if _, done := owner[n]; done {
					continue
				}
				owner[n] = -1
				if o, ok := s.index.owner[n]; ok {
					if p, in := pos[o]; in {
						owner[n] = p
					}
				}
			}
		}
	}
	if c != nil {
		for _, d := range c.allDecls() {
			for _, n := range declNames(d) {
				owner[n] = len(all) - 1
			}
		}
	}
	files := make([]*ast.File, 0, len(all))
	for i, x := range all {
		f := &ast.File{Name: x.file.Name, Package: x.file.Package, FileStart: x.file.FileStart, FileEnd: x.file.FileEnd}
		g := importDecl(x)
		if x != c && x == s.cells[x.index] {
			x.imported = g // committed and kept parsed: its imports no longer change
		}
		if len(g.Specs) > 0 {
			f.Decls = append(f.Decls, g)
		}
		for _, d := range x.imports {
			f.Decls = append(f.Decls, d)
		}
		for _, d := range x.decls {
			if d := keepDecl(d, owner, i); d != nil {
				if strip && x != c {
					d = withoutBody(d)
				}
				f.Decls = append(f.Decls, d)
			}
		}
		for _, d := range x.hoisted {
			if d := keepDecl(d, owner, i); d != nil {
				f.Decls = append(f.Decls, d)
			}
		}
		if x == c && len(c.body.List) > 0 {
			f.Decls = append(f.Decls, &ast.FuncDecl{Name: ast.NewIdent("_"), Type: &ast.FuncType{Params: &ast.FieldList{}}, Body: c.body})
		}
		files = append(files, f)
	}
	return files
}

// importDecl declares, for cell x, the imports of earlier cells that x does
// not import itself and uses (at the REPL, an import stays visible in later
// cells).
func importDecl(x *cell) *ast.GenDecl {
	if x.imported != nil {
		return x.imported
	}
	own := map[string]bool{}
	for _, d := range x.imports {
		for _, s := range d.Specs {
			own[pkgname.Of(s.(*ast.ImportSpec), nil)] = true
		}
	}
	g := &ast.GenDecl{Tok: token.IMPORT}
	for name, path := range x.importSet {
		if !own[name] && x.qualifiers[name] {
			g.Specs = append(g.Specs, &ast.ImportSpec{Name: ast.NewIdent(name), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(path)}})
		}
	}
	return g
}

// keepDecl returns d without the names a later cell redeclares (nil if none
// is left).
func keepDecl(d ast.Decl, owner map[string]int, i int) ast.Decl {
	names := declNames(d)
	dropped := false
	for _, n := range names {
		if owner[n] != i {
			dropped = true
		}
	}
	if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
		if t := recvBase(fd); t != "" && owner[t] > i {
			return nil // methods of a type redeclared later belong to the old type
		}
	}
	if !dropped {
		return d
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		return nil
	case *ast.GenDecl:
		g := *d
		g.Specs = nil
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if owner[s.Name.Name] == i {
					g.Specs = append(g.Specs, s)
				}
			case *ast.ValueSpec:
				v := *s
				v.Names = make([]*ast.Ident, len(s.Names))
				any := false
				for k, n := range s.Names {
					if n.Name != "_" && owner[n.Name] == i {
						v.Names[k] = n
						any = true
					} else {
						v.Names[k] = &ast.Ident{NamePos: n.NamePos, Name: "_"}
					}
				}
				if any {
					g.Specs = append(g.Specs, &v)
				}
			default:
				g.Specs = append(g.Specs, s)
			}
		}
		if len(g.Specs) == 0 {
			return nil
		}
		return &g
	}
	return d
}

// ignorable reports errors that are not errors at the REPL: an import not
// used by this cell (it may be used later), and the value of a top-level
// expression statement (the REPL prints it).
func ignorable(c *cell, e types.Error) bool {
	if strings.HasSuffix(e.Msg, "imported and not used") || strings.Contains(e.Msg, " and not used") && strings.Contains(e.Msg, "imported as") {
		return true
	}
	if strings.HasSuffix(e.Msg, " is not used") {
		for x := range c.exprs {
			if x.Pos() == e.Pos {
				return true
			}
		}
	}
	return false
}
