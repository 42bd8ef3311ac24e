package repl

import (
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// :doc PKG[.NAME[.METHOD]] prints go/doc's documentation of a package of
// the standard library (from $GOROOT/src, when the host has it) or of the
// session's own packages (classes/src: uploaded, or modules fetched with
// :get); PKG is a path or the name the session imported it by. The source
// is read as hostile input: through an
// os.Root, regular files only, each file and the total bounded.

// maxDocSource bounds the source read for one :doc.
const maxDocSource = 16 << 20

func (c *commander) doc(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: :doc PKG or :doc PKG.NAME (e.g. :doc strings.Cut)")
	}
	pkgPath, name := splitDocName(args[0])
	if pkgPath == "" || !filepath.IsLocal(pkgPath) {
		return fmt.Errorf("doc: %q is no package name", args[0])
	}
	if !strings.Contains(pkgPath, "/") {
		// A package by the name the session's code uses (json, greet).
		if ls, err := c.frontEnd(); err == nil {
			if p, ok := ls.ImportPath(pkgPath); ok {
				pkgPath = p
			}
		}
	}
	files, err := c.docSources(pkgPath)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(fset, f.name, f.src, parser.ParseComments)
		if err != nil {
			continue // a broken file leaves the others' documentation
		}
		parsed = append(parsed, af)
	}
	p, err := doc.NewFromFiles(fset, parsed, pkgPath)
	if err != nil {
		return fmt.Errorf("doc %s: %w", pkgPath, err)
	}
	return printDoc(c.out, fset, p, name)
}

// splitDocName cuts "encoding/json.Marshal" into the package and the rest;
// a name whose last path element has no dot is a package.
func splitDocName(s string) (pkg, name string) {
	dir, last := path.Split(s)
	if i := strings.IndexByte(last, '.'); i >= 0 {
		return dir + last[:i], last[i+1:]
	}
	return s, ""
}

type docFile struct {
	name string
	src  []byte
}

// docSources reads the package's Go files (no tests): the session's own
// package first, else the standard library's.
func (c *commander) docSources(pkgPath string) ([]docFile, error) {
	classes := filepath.Join(c.s.dir, "classes", "src")
	if files, err := readPackageDir(classes, pkgPath); err == nil {
		return files, nil
	}
	goroot := build.Default.GOROOT
	if goroot == "" {
		return nil, fmt.Errorf("doc %s: not a package of the session, and this host has no Go source tree (GOROOT) for the standard library", pkgPath)
	}
	files, err := readPackageDir(filepath.Join(goroot, "src"), pkgPath)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(goroot, "src")); serr != nil {
			return nil, fmt.Errorf("doc %s: not a package of the session, and this host has no Go source tree at %s/src for the standard library", pkgPath, goroot)
		}
		return nil, fmt.Errorf("doc %s: no such package in the session's classes/src or the standard library", pkgPath)
	}
	return files, err
}

func readPackageDir(base, pkgPath string) ([]docFile, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := openSubdir(root, pkgPath)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	d, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	var files []docFile
	total := 0
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || !e.Type().IsRegular() {
			continue
		}
		b, err := safefs.Read(dir, n, maxDocSource-int64(total))
		if err != nil {
			return nil, err
		}
		total += len(b)
		files = append(files, docFile{n, b})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w (no Go files)", pkgPath, os.ErrNotExist)
	}
	return files, nil
}

// printDoc prints the package's synopsis and exported names, or the
// declaration and comment of one name (Type.Method for a method).
func printDoc(w io.Writer, fset *token.FileSet, p *doc.Package, name string) error {
	decl := func(n ast.Node) {
		var b strings.Builder
		printer.Fprint(&b, fset, n)
		fmt.Fprintln(w, b.String())
	}
	text := func(s string) {
		if strings.TrimSpace(s) == "" {
			return
		}
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			fmt.Fprintln(w, "    "+l)
		}
	}
	if name == "" {
		fmt.Fprintf(w, "package %s // import %q\n\n", p.Name, p.ImportPath)
		text(p.Doc)
		var names []string
		for _, f := range p.Funcs {
			names = append(names, "func "+f.Name)
		}
		for _, t := range p.Types {
			names = append(names, "type "+t.Name)
			for _, f := range t.Funcs {
				names = append(names, "func "+f.Name)
			}
		}
		fmt.Fprintln(w)
		for _, n := range names {
			fmt.Fprintln(w, n)
		}
		return nil
	}
	typeName, method, _ := strings.Cut(name, ".")
	for _, f := range p.Funcs {
		if f.Name == name {
			decl(f.Decl)
			text(f.Doc)
			return nil
		}
	}
	for _, t := range p.Types {
		for _, f := range t.Funcs {
			if f.Name == name {
				decl(f.Decl)
				text(f.Doc)
				return nil
			}
		}
		if t.Name != typeName {
			continue
		}
		if method == "" {
			decl(t.Decl)
			text(t.Doc)
			for _, m := range t.Methods {
				fmt.Fprintf(w, "func (%s) %s\n", t.Name, m.Name)
			}
			return nil
		}
		for _, m := range t.Methods {
			if m.Name == method {
				decl(m.Decl)
				text(m.Doc)
				return nil
			}
		}
	}
	for _, vs := range [][]*doc.Value{p.Consts, p.Vars} {
		for _, v := range vs {
			for _, n := range v.Names {
				if n == name {
					decl(v.Decl)
					text(v.Doc)
					return nil
				}
			}
		}
	}
	return fmt.Errorf("doc: no %s in package %s", name, p.ImportPath)
}
