package yaegix

import (
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	gen "github.com/traefik/yaegi/stdlib/generic"
)

// GenericPackages are the packages yaegi v0.16.1 implements in source
// (stdlib/generic: cmp, maps, slices of Go 1.22), compiled by every Use
// of the standard tables: ~0.8 MiB of live heap per interpreter, which
// most sessions never import.
var GenericPackages = []string{"cmp", "maps", "slices"}

// genSources serializes UseWithoutGenerics: it blanks the shared
// gen.Sources while its Use runs.
var genSources sync.Mutex

// UseWithoutGenerics is yi.Use(exports) without the compile of yaegi's
// generic sources that a Use holding "fmt/fmt" does (with its fixStdlib,
// which stays). yaegi offers no switch: the sources, an exported array,
// are blanked during the call (Compile of "" does nothing). Every Use of
// "fmt/fmt" in this process must go through here while one runs.
// CompileGenerics compiles them later, before code that may import them.
func UseWithoutGenerics(yi *interp.Interpreter, exports interp.Exports) error {
	genSources.Lock()
	defer genSources.Unlock()
	saved := gen.Sources
	for i := range gen.Sources {
		gen.Sources[i] = ""
	}
	defer func() { gen.Sources = saved }()
	return yi.Use(exports)
}

// CompileGenerics compiles yaegi's generic sources into yi, as the Use of
// the standard tables would have done. Call it once per interpreter.
func CompileGenerics(yi *interp.Interpreter) error {
	genSources.Lock()
	srcs := gen.Sources
	genSources.Unlock()
	for _, s := range srcs {
		if _, err := yi.Compile(s); err != nil {
			return err
		}
	}
	return nil
}

// MayUseGenerics reports whether code, about to be compiled with the
// imports paths, may reach a package of GenericPackages: it imports one, or
// a package that is not standard (an upload, which yaegi compiles from
// source and which may import one), or it names one (yaegi binds their
// names in its universe, so code may use them without an import).
func MayUseGenerics(code string, paths []string, std func(path string) bool) bool {
	for _, p := range paths {
		for _, g := range GenericPackages {
			if p == g {
				return true
			}
		}
		if !std(p) {
			return true
		}
	}
	for _, g := range GenericPackages {
		if strings.Contains(code, g) {
			return true
		}
	}
	return false
}
