// Command genextract regenerates zsym_*.go in the lower package: yaegi
// interpreter symbols, made with yaegi's own extract tool, for the exported
// non-generic standard-library symbols of the Go toolchain in go.mod that
// yaegi's Go 1.22 tables lack (strings.Lines, os.CopyFS, bytes.Lines, ...).
//
// Run through `go generate` in the lower package.
package main

import (
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/traefik/yaegi/extract"
	"github.com/traefik/yaegi/stdlib"
)

// newPkgs are packages added to the standard library after Go 1.22 whose
// non-generic API the interpreter can use.
var newPkgs = []string{"structs", "crypto/sha3", "crypto/mlkem"}

func main() {
	old, _ := filepath.Glob("zsym_*.go")
	for _, f := range old {
		os.Remove(f)
	}
	have := map[string]map[string]bool{}
	for key, syms := range stdlib.Symbols {
		p := filepath.Dir(key)
		if p == "." || strings.HasPrefix(p, "github.com/") {
			continue
		}
		have[p] = map[string]bool{}
		for name := range syms {
			have[p][name] = true
		}
	}
	var pkgs []string
	for p := range have {
		pkgs = append(pkgs, p)
	}
	for _, p := range newPkgs {
		if _, ok := have[p]; !ok {
			have[p] = map[string]bool{}
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(pkgs)
	imp := importer.ForCompiler(token.NewFileSet(), "gc", nil)
	total := 0
	for _, p := range pkgs {
		pkg, err := imp.Import(p)
		if err != nil {
			log.Printf("skip %s: %v", p, err)
			continue
		}
		var missing []string
		for _, name := range pkg.Scope().Names() {
			obj := pkg.Scope().Lookup(name)
			if !obj.Exported() || have[p][name] || generic(obj) {
				continue
			}
			missing = append(missing, "^"+regexp.QuoteMeta(name)+"$")
		}
		if len(missing) == 0 {
			continue
		}
		ext := extract.Extractor{Dest: "lower", Include: missing}
		var buf bytes.Buffer
		if _, err := ext.Extract(p, "", &buf); err != nil {
			log.Fatalf("extract %s: %v", p, err)
		}
		file := "zsym_" + strings.NewReplacer("/", "_", ".", "_").Replace(p) + ".go"
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		total += len(missing)
		fmt.Printf("%s: %d symbols\n", p, len(missing))
	}
	fmt.Printf("%d symbols\n", total)
}

func generic(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Type().(*types.Signature).TypeParams().Len() > 0
	case *types.TypeName:
		if n, ok := o.Type().(*types.Named); ok {
			return n.TypeParams().Len() > 0
		}
		if a, ok := o.Type().(*types.Alias); ok {
			return a.TypeParams().Len() > 0
		}
	}
	return false
}
