package lower

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"strconv"

	"github.com/replhost/replhost/internal/pkgname"
)

// cell is one parsed cell. Its synthetic file holds three sections, each a
// copy of the cell with the other units blanked out (newlines kept, so every
// node keeps the user's line and column through a //line directive):
//
//	package main
//	//line cell:1
//	<import units>
//	//line cell:1
//	<declaration units>
//	func ʟcell() {
//	//line cell:1
//	<statement units>
//	}
type cell struct {
	index int // position in the session (committed cells first, then the current one)
	src   []byte
	units []unit
	file  *ast.File
	tf    *token.File // nil once committed, unless it keeps its syntax (settle)
	base  int         // tf's base and size: the cell's positions
	size  int
	sec   [3]int // synthetic offset of cell offset 0 in each section (-1: left out, no unit of its kind)

	imports []*ast.GenDecl    // the cell's own import declarations
	decls   []ast.Decl        // the cell's declarations (not imports)
	hoisted []*ast.GenDecl    // var declarations standing for top-level `x := e`
	body    *ast.BlockStmt    // the cell's statements, minus hoisted definitions
	exprs   map[ast.Expr]bool // top-level expression statements (their value is printed)
	unitOf  map[ast.Node]int  // top-level node → index in units

	importSet map[string]string // name → path: every import visible to this cell
	// qualifiers are the names used as X in X.Sel: an earlier cell's import
	// the cell does not name cannot matter to it, and leaving it out of the
	// type-checked file spares go/types an unused-import error per cell.
	qualifiers map[string]bool
	imported   *ast.GenDecl    // importDecl's result, kept once the cell is committed
	mentions   map[string]bool // identifiers of its declarations (depends.go), once committed
}

const cellFuncName = "ʟcell"

// parseCell parses src as cell number index; prev is the import set visible
// before it (imports stay visible in later cells at the REPL).
func parseCell(fset *token.FileSet, index int, src string, prev map[string]string) (*cell, error) {
	units, _ := splitUnits([]byte(src)) // a scanner error is the parser's too
	c := &cell{index: index, src: []byte(src), units: units, unitOf: map[ast.Node]int{}, exprs: map[ast.Expr]bool{}}
	var has [3]bool
	for _, u := range units {
		has[u.kind] = true
	}
	var b []byte
	b = append(b, "package main\n"...)
	for k := range 3 {
		if k == 2 {
			b = append(b, "func "+cellFuncName+"() {\n"...)
		}
		// A section with no unit would be blanks only: left out, it costs
		// the file (kept for the session's life) no lines and no //line.
		c.sec[k] = -1
		if !has[k] {
			continue
		}
		b = append(b, "//line cell:1:1\n"...)
		c.sec[k] = len(b)
		b = append(b, c.blank(unitKind(k))...)
		b = append(b, '\n')
	}
	b = append(b, "}\n"...)
	f, err := parser.ParseFile(fset, "cell", b, parser.SkipObjectResolution)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			return nil, &Error{Line: list[0].Pos.Line, Col: list[0].Pos.Column, Msg: list[0].Msg}
		}
		return nil, &Error{Line: 1, Col: 1, Msg: err.Error()}
	}
	c.file = f
	c.tf = fset.File(f.Pos())
	c.base, c.size = c.tf.Base(), c.tf.Size()
	// A cell without imports shares prev (never written after its parse):
	// a copy per cell was kept by every committed cell.
	c.importSet = prev
	if c.importSet == nil {
		c.importSet = map[string]string{}
	}
	copied := false
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				c.imports = append(c.imports, d)
				for _, s := range d.Specs {
					s := s.(*ast.ImportSpec)
					path, _ := strconv.Unquote(s.Path.Value)
					name := pkgname.Of(s, nil)
					if name != "_" && name != "." {
						if !copied {
							c.importSet, copied = maps.Clone(prev), true
							if c.importSet == nil {
								c.importSet = map[string]string{}
							}
						}
						c.importSet[name] = path
					}
				}
				c.mapUnit(d)
				continue
			}
			c.decls = append(c.decls, d)
			c.mapUnit(d)
		case *ast.FuncDecl:
			if d.Name.Name == cellFuncName && d.Recv == nil && c.offset(d.Pos()) < 0 {
				c.body = d.Body
				continue
			}
			c.decls = append(c.decls, d)
			c.mapUnit(d)
		}
	}
	c.qualifiers = map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				c.qualifiers[id.Name] = true
			}
		}
		return true
	})
	c.hoist()
	return c, nil
}

// blank returns the cell with every unit not of kind k replaced by spaces.
func (c *cell) blank(k unitKind) []byte {
	out := make([]byte, len(c.src))
	for i, ch := range c.src {
		if ch == '\n' {
			out[i] = '\n'
		} else {
			out[i] = ' '
		}
	}
	for _, u := range c.units {
		if u.kind == k {
			copy(out[u.start:u.end], c.src[u.start:u.end])
			// Units on one line were separated by a ';' that is not part
			// of either: keep one after the unit (`import "os"; import "fmt"`).
			if u.end < len(out) && out[u.end] != '\n' {
				out[u.end] = ';'
			}
		}
	}
	return out
}

// offset maps a position of the synthetic file to an offset in the cell
// source, or -1 if it lies in the synthetic scaffolding.
func (c *cell) offset(p token.Pos) int {
	if !c.contains(p) {
		return -1
	}
	o := int(p) - c.base
	for k := 2; k >= 0; k-- {
		if c.sec[k] >= 0 && o >= c.sec[k] {
			if o-c.sec[k] > len(c.src) {
				return -1
			}
			return o - c.sec[k]
		}
	}
	return -1
}

// contains reports whether p is a position inside this cell's file.
func (c *cell) contains(p token.Pos) bool {
	return p.IsValid() && c.size > 0 && int(p) >= c.base && int(p) <= c.base+c.size
}

func (c *cell) mapUnit(n ast.Node) {
	o := c.offset(n.Pos())
	for i, u := range c.units {
		if o >= u.start && o < u.end {
			c.unitOf[n] = i
			return
		}
	}
}

// hoist turns each top-level `a, b := e` of the cell's statements into a
// package-level `var a, b = e` of the type-checking model: at the REPL those
// variables are globals, visible to the cell's declarations and to later
// cells. Names already defined by an earlier unit of the same cell become
// `_` (the statement assigns them); a definition that defines nothing new
// stays in the body as an assignment.
func (c *cell) hoist() {
	if c.body == nil {
		return
	}
	defined := map[string]bool{}
	for _, d := range c.decls {
		for _, n := range declNames(d) {
			defined[n] = true
		}
	}
	var keep []ast.Stmt
	for _, st := range c.body.List {
		c.mapUnit(st)
		if es, ok := st.(*ast.ExprStmt); ok {
			c.exprs[es.X] = true
		}
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			keep = append(keep, st)
			continue
		}
		spec := &ast.ValueSpec{Values: as.Rhs}
		fresh := false
		for _, l := range as.Lhs {
			id, _ := l.(*ast.Ident)
			if id == nil || id.Name == "_" || defined[id.Name] {
				spec.Names = append(spec.Names, &ast.Ident{NamePos: l.Pos(), Name: "_"})
				continue
			}
			defined[id.Name] = true
			fresh = true
			spec.Names = append(spec.Names, id)
		}
		if !fresh {
			keep = append(keep, &ast.AssignStmt{Lhs: as.Lhs, TokPos: as.TokPos, Tok: token.ASSIGN, Rhs: as.Rhs})
			continue
		}
		c.hoisted = append(c.hoisted, &ast.GenDecl{TokPos: as.Pos(), Tok: token.VAR, Specs: []ast.Spec{spec}})
	}
	c.body.List = keep
}

// declNames lists the package-level names a declaration introduces; a
// method is named "T.M".
func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			if t := recvBase(d); t != "" {
				names = append(names, t+"."+d.Name.Name)
			}
			return names
		}
		if d.Name.Name != "init" && d.Name.Name != "_" {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.Name != "_" {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// recvBase returns the name of a method's receiver base type.
func recvBase(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// settle drops what only the cell's own lowering reads, once it is
// committed: the statements, the units and the maps keyed by its
// top-level nodes, and its token.File leaves the session's FileSet (the
// cell's positions stay in base and size; the FileSet of a check that
// needs them is made for it, fileSetOf). A session keeps every committed
// cell. A cell whose declarations later cells' lowerings read (generics,
// whose instances are made from their cell's declarations and types.Info,
// and type declarations, which redefine.go compares) keeps its
// declarations, hoisted definitions, imports and token.File; any other
// keeps only its source, its import set and its extent, and is parsed
// again (syntax) on the rare paths that need its syntax: the whole model's
// check, a rebuild, a pending cell's check alone. Those were ~1 KB of each
// declared cell, 45 % of what the front end kept.
func (s *Session) settle(c *cell) {
	s.fset.RemoveFile(c.tf)
	c.units, c.unitOf, c.exprs, c.imported = nil, nil, nil, nil
	if !c.keepsSyntax() {
		c.file, c.tf, c.body, c.imports, c.decls, c.hoisted, c.qualifiers = nil, nil, nil, nil, nil, nil, nil
		return
	}
	f := c.file
	c.file = &ast.File{Name: f.Name, Package: f.Package, FileStart: f.FileStart, FileEnd: f.FileEnd}
	if c.body != nil {
		c.body = &ast.BlockStmt{Lbrace: c.body.Lbrace, Rbrace: c.body.Rbrace}
	}
}

// keepsSyntax reports whether c declares a type or a generic function or
// method: its declarations stay parsed once it is committed (settle).
func (c *cell) keepsSyntax() bool {
	for _, d := range c.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE || isGenericDecl(d) {
			return true
		}
	}
	return false
}

// syntax returns committed cell c with its declarations parsed: c itself
// when it kept them, else a copy parsed again from its source, settled
// alike (no statements). The copy is parsed in a scratch FileSet whose
// next base is c's, so its nodes have the positions of c's first parse:
// those of the objects the incremental check kept.
func (s *Session) syntax(c *cell) *cell {
	if c.file != nil {
		return c
	}
	fs := token.NewFileSet()
	if gap := c.base - fs.Base() - 1; gap >= 0 {
		fs.AddFile("", -1, gap)
	}
	p, err := parseCell(fs, c.index, string(c.src), c.importSet)
	if err != nil || p.base != c.base || p.size != c.size {
		panic(fmt.Sprintf("committed cell %d does not parse again as it did: %v", c.index, err))
	}
	p.importSet = c.importSet
	p.mentions = c.mentions
	p.units, p.unitOf, p.exprs = nil, nil, nil
	if p.body != nil {
		p.body = &ast.BlockStmt{Lbrace: p.body.Lbrace, Rbrace: p.body.Rbrace}
	}
	return p
}

// withSyntax returns cells, each with its declarations parsed (syntax).
func (s *Session) withSyntax(cells []*cell) []*cell {
	out := make([]*cell, len(cells))
	for i, c := range cells {
		out[i] = s.syntax(c)
	}
	return out
}

// fileSetOf returns a FileSet that holds the files of cells (each with its
// syntax): the session's for the current cell alone, else one made of
// their token.Files (go/types looks up the file of every file it checks).
func (s *Session) fileSetOf(cells []*cell) *token.FileSet {
	if len(cells) == 1 && cells[0].tf != nil && s.fset.File(token.Pos(cells[0].base)) == cells[0].tf {
		return s.fset
	}
	tfs := make([]*token.File, len(cells))
	for i, c := range cells {
		tfs[i] = c.tf
	}
	fs := token.NewFileSet()
	fs.AddExistingFiles(tfs...)
	return fs
}

// forget removes the file of a parsed cell that was not committed (its
// objects are nowhere kept) from the session's FileSet.
func (s *Session) forget(c *cell) {
	if c != nil && c.tf != nil && (c.index >= len(s.cells) || s.cells[c.index] != c) {
		s.fset.RemoveFile(c.tf)
	}
}
