package sandbox

import (
	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// ownTables returns the package tables of exports (keys "path/name"),
// each replaced by the interpreter's own: yaegi's Use copies every table
// it is given, so the Interp reads that copy (completion) and holds no
// reference into the process's shared stdlib.Symbols, which a worker then
// drops (dropSharedTables).
func ownTables(yi *interp.Interpreter, exports interp.Exports) interp.Exports {
	out := make(interp.Exports, len(exports))
	for key, syms := range exports {
		path, _, ok := yaegix.SplitKey(key)
		if !ok {
			continue // yaegi's wrapper types: no package
		}
		if own := yi.Symbols(path)[path]; own != nil {
			syms = own
		}
		out[key] = syms
	}
	return out
}

// dropSharedTables empties the process's standard symbol tables (yaegi's
// stdlib.Symbols, the front end's newer ones), built at init for every
// package, the refused ones too (~0.4 MiB of heap): a worker calls it once
// its session's interpreter, which holds its own copy of the allowed ones,
// is made, as no other interpreter is made in it after that. What is
// computed from them (stdPaths) is computed first.
func dropSharedTables() {
	stdPaths()
	clear(stdlib.Symbols)
	clear(lower.Symbols)
}

// sharedTables is the number of tables dropSharedTables would drop, for
// the worker's stats.
func sharedTables() int { return len(stdlib.Symbols) + len(lower.Symbols) }
