package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// importParse is the one parse of an import unit's specs, shared by the
// checks of a cell's imports (checkImports, dropReimports, importsNonStd).
type importParse struct {
	fset  *token.FileSet
	specs []*ast.ImportSpec
	ok    bool // parsed without error
}

// importHead is what importSpecs puts before the unit (padded to its place).
const importHead = "package p\n"

// importSpecs returns the specs of the import unit u, parsed on first use
// at the unit's line and column; ok is false if the unit does not parse
// (the syntax check reports it) or is no import.
func (u *unit) importSpecs() (specs []*ast.ImportSpec, ok bool) {
	if !u.imports {
		return nil, false
	}
	if u.imp == nil {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", importHead+padTo(*u)+u.text, parser.ImportsOnly)
		u.imp = &importParse{fset: fset, ok: err == nil}
		if err == nil {
			u.imp.specs = f.Imports
		}
	}
	return u.imp.specs, u.imp.ok
}

// userPos is the user's line and column of p, a position of importSpecs.
func (u *unit) userPos(p token.Pos) (line, col int) {
	pos := u.imp.fset.PositionFor(p, false)
	return pos.Line - 1, pos.Column
}

// cellOffset is the byte offset in the cell of p, a position of importSpecs.
func (u *unit) cellOffset(p token.Pos) int {
	return u.start + u.imp.fset.Position(p).Offset - len(importHead) - len(padTo(*u))
}
