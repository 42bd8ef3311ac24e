package sandbox

import (
	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// ownTables returns the package tables of exports (keys "path/name"),
// each replaced by the interpreter's own: the copy yaegi's Use made of
// the tables it writes to, or the very table for those UseShared gave it
// as they are. The Interp reads these (completion) and needs no entry of
// the process's stdlib.Symbols, which a worker then empties
// (dropSharedTables).
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

// dropSharedTables empties the process's maps of standard symbol tables
// (yaegi's stdlib.Symbols, the front end's newer ones), built at init for
// every package, the refused ones too: a worker calls it once its
// session's interpreter is made, as no other interpreter is made in it
// after that. The tables the interpreter shares stay (UseShared); those of
// refused packages become garbage. What is computed from the maps
// (stdPaths) is computed first.
func dropSharedTables() {
	stdPaths()
	clear(stdlib.Symbols)
	clear(lower.Symbols)
}

// sharedTables is the number of tables dropSharedTables would drop, for
// the worker's stats.
func sharedTables() int { return len(stdlib.Symbols) + len(lower.Symbols) }
