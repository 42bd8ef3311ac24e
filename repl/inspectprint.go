package repl

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/replhost/replhost/lower"
)

// :print and :write build the session's journal as one Go program that
// `go build` and `go vet` accept: the imports the code uses, the
// declarations (a name declared again replaces the earlier declaration, as
// at the prompt), the variables the cells defined with := as package
// variables (functions may use them, and none is "declared and not used"),
// and the statements, in order, in func main.

// programHeader opens the program :print writes.
const programHeader = "// The session's journal as one program (replhost :print).\n" +
	"// Variables the cells defined with := are package variables here, set in main.\n\npackage main\n\n"

// program is the session's journal as one gofmt'd Go program.
func (c *commander) program() ([]byte, error) {
	cells, err := c.s.journal.Cells()
	if err != nil {
		return nil, err
	}
	return sessionProgram(cells, filepath.Join(c.s.dir, "classes"))
}

// programParts collects the pieces of the program.
type programParts struct {
	imports []string
	seenImp map[string]bool
	decls   []progDecl
	stmts   []progStmt
	// vars are the package variables for := definitions, in order, with
	// their types; local holds names kept local to main (their type could
	// not be written, or differs between cells), conflict those whose
	// types differ.
	vars     []string
	varType  map[string]string
	local    map[string]bool
	declared map[string]bool // names with a declaration of their own
}

type progDecl struct{ key, text string }

// progStmt is a statement of main; a top-level := also as the assignment
// to the names it defines.
type progStmt struct {
	text, assign string
	names        []string
}

func sessionProgram(cells []string, classes string) ([]byte, error) {
	p := &programParts{seenImp: map[string]bool{}, varType: map[string]string{}, local: map[string]bool{}, declared: map[string]bool{}}
	ls := lower.NewSession(lower.Options{Classes: classes})
	for _, cell := range cells {
		var defined []string
		for _, piece := range lower.Split(cell) {
			defined = append(defined, p.addPiece(piece)...)
		}
		ls.Commit(cell)
		p.typeVars(ls, defined)
	}
	return p.build(ls.Imports())
}

// addPiece adds one piece of a cell; it returns the names a top-level :=
// of the piece defines.
func (p *programParts) addPiece(piece string) []string {
	fset := token.NewFileSet()
	src := "package main\n" + piece
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return p.addStatement(piece)
	}
	for _, d := range f.Decls {
		text := src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset]
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			for _, s := range g.Specs {
				spec := src[fset.Position(s.Pos()).Offset:fset.Position(s.End()).Offset]
				if !p.seenImp[spec] {
					p.seenImp[spec] = true
					p.imports = append(p.imports, spec)
				}
			}
			continue
		}
		key := declKey(d)
		for _, kind := range []string{"value ", "func ", "type "} {
			if name, ok := strings.CutPrefix(key, kind); ok {
				p.declared[name] = true
			}
		}
		p.decls = append(p.decls, progDecl{key, text})
	}
	return nil
}

// addStatement adds a statement of main. A top-level := becomes an
// assignment to the package variables it defines.
func (p *programParts) addStatement(piece string) []string {
	stmt := mainStatement(piece)
	fset := token.NewFileSet()
	const open = "package main\nfunc main() {\n"
	f, err := parser.ParseFile(fset, "", open+stmt+"\n}", 0)
	if err != nil || len(f.Decls) != 1 {
		p.stmts = append(p.stmts, progStmt{text: stmt})
		return nil
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) != 1 {
		p.stmts = append(p.stmts, progStmt{text: stmt})
		return nil
	}
	as, ok := body[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		p.stmts = append(p.stmts, progStmt{text: stmt})
		return nil
	}
	var names []string
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	at := fset.Position(as.TokPos).Offset - len(open)
	p.stmts = append(p.stmts, progStmt{text: stmt, assign: stmt[:at] + "=" + stmt[at+2:], names: names})
	return names
}

// typeVars records the types of the names a cell defined, now that the
// front end has the cell.
func (p *programParts) typeVars(ls *lower.Session, names []string) {
	for _, n := range names {
		t, err := ls.TypeOf(n)
		switch {
		case err != nil || strings.HasPrefix(t, "untyped"):
			p.local[n] = true
		case p.varType[n] == "":
			p.varType[n] = t
			p.vars = append(p.vars, n)
		case p.varType[n] != t:
			p.local[n] = true // defined again with another type
		}
	}
}

// build writes the program: imports not used by the code are left out.
func (p *programParts) build(names map[string]string) ([]byte, error) {
	var body strings.Builder
	last := map[string]int{}
	for i, d := range p.decls {
		if d.key != "" {
			last[d.key] = i
		}
	}
	for i, d := range p.decls {
		if d.key != "" && last[d.key] != i {
			continue // declared again later
		}
		body.WriteString(d.text + "\n\n")
	}
	imported := map[string]bool{}
	for n := range names {
		imported[n] = true
	}
	var vars []string
	for _, n := range p.vars {
		if p.local[n] || p.declared[n] || !typeWritable(p.varType[n], imported) {
			p.local[n] = true
			continue
		}
		vars = append(vars, "\t"+n+" "+p.varType[n]+"\n")
	}
	if len(vars) > 0 {
		body.WriteString("var (\n" + strings.Join(vars, "") + ")\n\n")
	}
	body.WriteString("func main() {\n")
	// A local defined again (another type) opens a block, where it may
	// be: the statements after it see the new one, as at the prompt.
	defined := map[string]bool{}
	blocks := 0
	for _, s := range p.stmts {
		text := p.statement(s)
		if text != s.assign {
			again := false
			for _, n := range s.names {
				again = again || p.local[n] && defined[n]
			}
			if again {
				body.WriteString("{\n")
				blocks++
			}
			for _, n := range s.names {
				defined[n] = defined[n] || p.local[n]
			}
		}
		body.WriteString(text + "\n")
	}
	body.WriteString(strings.Repeat("}\n", blocks) + "}\n")

	var b strings.Builder
	b.WriteString(programHeader)
	used := usedNames(body.String())
	var imps []string
	for _, spec := range p.imports {
		if importUsed(spec, names, used) {
			imps = append(imps, "\t"+spec+"\n")
		}
	}
	if len(imps) > 0 {
		b.WriteString("import (\n" + strings.Join(imps, "") + ")\n\n")
	}
	b.WriteString(body.String())
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the journal does not make a Go program: %v", err)
	}
	return out, nil
}

// statement is a statement of main as written: a := whose names are all
// package variables as an assignment, else as typed, each local name then
// marked used.
func (p *programParts) statement(s progStmt) string {
	if s.assign == "" {
		return s.text
	}
	text := s.assign
	for _, n := range s.names {
		if p.local[n] {
			text = s.text
		}
	}
	if text == s.text {
		for _, n := range s.names {
			if p.local[n] {
				text += "\n_ = " + n
			}
		}
	}
	return text
}

// typeWritable reports whether type text t names only packages the
// program imports (a type of a package the code never imported, such as
// fs.FileInfo from os.Stat, cannot be written there).
func typeWritable(t string, imported map[string]bool) bool {
	e, err := parser.ParseExpr(t)
	if err != nil {
		return false
	}
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, isSel := n.(*ast.SelectorExpr); isSel {
			if id, isID := sel.X.(*ast.Ident); isID && !imported[id.Name] {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// usedNames are the identifiers src uses as the base of a selector.
func usedNames(src string) map[string]bool {
	used := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, 0)
	if err != nil {
		return nil // keep every import; format.Source reports the error
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// importUsed reports whether the import spec is used by the code: a blank
// or dot import always, a named one when its name is (used nil: all are).
func importUsed(spec string, names map[string]string, used map[string]bool) bool {
	if used == nil {
		return true
	}
	fields := strings.Fields(spec)
	path, err := strconv.Unquote(fields[len(fields)-1])
	if err != nil {
		return true
	}
	if len(fields) == 2 {
		return fields[0] == "_" || fields[0] == "." || used[fields[0]]
	}
	for n, p := range names {
		if p == path && used[n] {
			return true
		}
	}
	return false
}

// mainStatement is a statement of the cell as a statement of main: an
// expression whose value the prompt showed (p, x+1) is not a Go statement,
// so it is kept as an assignment to _.
func mainStatement(piece string) string {
	e, err := parser.ParseExpr(piece)
	if err != nil {
		return piece
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		return piece
	case *ast.UnaryExpr:
		if e.Op == token.ARROW {
			return piece
		}
	}
	return "_ = " + piece
}

// declKey names what a declaration declares, for replacing it; "" for
// one that declares several names or none.
func declKey(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			t := d.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if id, ok := t.(*ast.Ident); ok {
				return "method " + id.Name + "." + d.Name.Name
			}
			return ""
		}
		if d.Name.Name == "init" || d.Name.Name == "_" {
			return ""
		}
		return "func " + d.Name.Name
	case *ast.GenDecl:
		if len(d.Specs) != 1 {
			return ""
		}
		switch s := d.Specs[0].(type) {
		case *ast.TypeSpec:
			return "type " + s.Name.Name
		case *ast.ValueSpec:
			if len(s.Names) == 1 && s.Names[0].Name != "_" {
				return "value " + s.Names[0].Name
			}
		}
	}
	return ""
}
