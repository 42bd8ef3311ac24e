package lower

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// srcImporter resolves the imports of a session: the standard library from
// embedded export data, uploaded packages from source under
// <Classes>/src, then Options.Importer. Uploaded packages are re-checked
// when a file of theirs changes (a re-upload).
type srcImporter struct {
	opts  Options
	fset  *token.FileSet
	cache map[string]*srcPkg
}

type srcPkg struct {
	stamp string // names, sizes and mtimes of the package's files
	pkg   *types.Package
	err   error
}

func newSrcImporter(opts Options) *srcImporter {
	return &srcImporter{opts: opts, fset: token.NewFileSet(), cache: map[string]*srcPkg{}}
}

func (si *srcImporter) Import(path string) (*types.Package, error) {
	return si.ImportFrom(path, "", 0)
}

func (si *srcImporter) ImportFrom(path, _ string, _ types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if isStd(path) {
		return importStd(path)
	}
	if si.opts.Classes != "" {
		dir := filepath.Join(si.opts.Classes, "src", filepath.FromSlash(path))
		if files, stamp := goFiles(dir); len(files) > 0 {
			if c := si.cache[path]; c != nil && c.stamp == stamp {
				return c.pkg, c.err
			}
			si.cache[path] = &srcPkg{stamp: stamp, err: fmt.Errorf("import cycle through %q", path)}
			pkg, err := si.checkDir(path, files)
			si.cache[path] = &srcPkg{stamp: stamp, pkg: pkg, err: err}
			return pkg, err
		}
	}
	if si.opts.Importer != nil {
		return si.opts.Importer.Import(path)
	}
	return nil, fmt.Errorf("package %q not found", path)
}

func (si *srcImporter) checkDir(path string, files []string) (*types.Package, error) {
	var asts []*ast.File
	for _, name := range files {
		f, err := parser.ParseFile(si.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		asts = append(asts, f)
	}
	var first error
	conf := types.Config{Importer: si, GoVersion: "go1.26", Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	pkg, _ := conf.Check(path, si.fset, asts, nil)
	if first != nil {
		return nil, first
	}
	return pkg, nil
}

// goFiles lists the non-test Go files of dir and a stamp of their state.
func goFiles(dir string) ([]string, string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, ""
	}
	var files []string
	var stamp strings.Builder
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, filepath.Join(dir, n))
		fmt.Fprintf(&stamp, "%s %d %d;", n, info.Size(), info.ModTime().UnixNano())
	}
	sort.Strings(files)
	return files, stamp.String()
}
