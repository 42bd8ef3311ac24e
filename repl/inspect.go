package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/replhost/replhost/lower"
)

// The meta-commands that look at the session's code without running it:
// :type EXPR, :print and :write FILE (and :doc, in doc.go's neighbour
// inspectdoc.go).

// typeOf prints the type of expr as the Go front end (go/types) sees it
// after the session's journal: nothing runs, in either isolation mode.
func (c *commander) typeOf(args []string, line string) error {
	expr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":type"))
	if len(args) == 0 || expr == "" {
		return errors.New("usage: :type EXPR")
	}
	ls, err := c.frontEnd()
	if err != nil {
		return err
	}
	t, err := ls.TypeOf(expr)
	if err != nil {
		return fmt.Errorf("type: %w", err)
	}
	fmt.Fprintln(c.out, t)
	return nil
}

// frontEnd is the Go front end after the session's journal, with the
// session's packages (uploaded, or fetched with :get) under classes/src.
func (c *commander) frontEnd() (*lower.Session, error) {
	cells, err := c.s.journal.Cells()
	if err != nil {
		return nil, err
	}
	ls := lower.NewSession(lower.Options{Classes: filepath.Join(c.s.dir, "classes")})
	for _, cell := range cells {
		ls.Commit(cell)
	}
	return ls, nil
}

// program is the session's journal as one Go program: the imports, the
// declarations (a name declared again replaces the earlier declaration,
// as at the prompt) and the statements in a func main, gofmt'd.
func (c *commander) program() ([]byte, error) {
	cells, err := c.s.journal.Cells()
	if err != nil {
		return nil, err
	}
	return sessionProgram(cells)
}

func sessionProgram(cells []string) ([]byte, error) {
	type decl struct {
		key, text string
	}
	var (
		imports []string
		seenImp = map[string]bool{}
		decls   []decl
		stmts   []string
	)
	for _, cell := range cells {
		for _, piece := range lower.Split(cell) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "", "package main\n"+piece, parser.ParseComments)
			if err != nil {
				stmts = append(stmts, mainStatement(piece)) // not a declaration: a statement of main
				continue
			}
			src := "package main\n" + piece
			for _, d := range f.Decls {
				text := src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset]
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
					for _, s := range g.Specs {
						spec := src[fset.Position(s.Pos()).Offset:fset.Position(s.End()).Offset]
						if !seenImp[spec] {
							seenImp[spec] = true
							imports = append(imports, spec)
						}
					}
					continue
				}
				decls = append(decls, decl{declKey(d), text})
			}
		}
	}
	var b strings.Builder
	b.WriteString("// The session's journal as one program (replhost :print).\n// Variables a cell defined with := are local to main here.\n\npackage main\n\n")
	if len(imports) > 0 {
		b.WriteString("import (\n")
		for _, s := range imports {
			b.WriteString("\t" + s + "\n")
		}
		b.WriteString(")\n\n")
	}
	last := map[string]int{}
	for i, d := range decls {
		if d.key != "" {
			last[d.key] = i
		}
	}
	for i, d := range decls {
		if d.key != "" && last[d.key] != i {
			continue // declared again later
		}
		b.WriteString(d.text + "\n\n")
	}
	b.WriteString("func main() {\n")
	for _, s := range stmts {
		b.WriteString(s + "\n")
	}
	b.WriteString("}\n")
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the journal does not make a Go program: %v", err)
	}
	return out, nil
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

// write saves the session's program as name in its files/, through an
// os.Root of files/: a name that leaves it (.., an absolute path, a
// symlink out) is refused.
func (c *commander) write(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: :write FILE (a file of the session's files/)")
	}
	name := args[0]
	if !filepath.IsLocal(name) {
		return fmt.Errorf("write %s: the name must stay inside the session's files/", name)
	}
	prog, err := c.program()
	if err != nil {
		return err
	}
	root, err := openSessionFiles(c.s.dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer root.Close()
	if err := writeRootAtomic(root, name, prog, syncNone); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	fmt.Fprintf(c.out, "wrote %s (%d bytes) to the session's files/\n", name, len(prog))
	return nil
}

// openSessionFiles opens the session's files/ as a root.
func openSessionFiles(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openSubdir(root, "files")
}
