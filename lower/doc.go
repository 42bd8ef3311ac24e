// Package lower is the typed front end of the REPL: it type-checks a cell
// with go/types in the context of the session's earlier cells and rewrites
// the Go 1.26 constructs that yaegi v0.16.1 cannot run (range over int and
// over functions, min/max/clear, generics, the generic std packages slices,
// maps, cmp and iter, per-iteration loop variables) into code it can.
//
// A cell is Go source typed at the prompt: imports, top-level declarations
// and statements in any order. Statements behave like the body of main, but
// the variables they declare persist into later cells, as yaegi keeps them as
// globals. Type errors are reported at the user's line and column with
// go/types' message; the rewritten code never shows in a message: LowerMap
// returns with the code a SourceMap that takes the positions of the
// interpreter's own errors back to the cell, and CleanMessage the names of
// the helpers and instances it adds.
//
// Beyond the language, the lowering works around yaegi bugs that go/types
// sees coming: fmt operands of interpreted types (%T, %d, Error and String
// methods), method values, top-level defers (run at the end of the cell, as
// at the end of main), deferred closures in loops, comma-ok forms and
// shadowing blocks at top level.
package lower
