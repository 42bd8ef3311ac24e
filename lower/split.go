package lower

import (
	"go/scanner"
	"go/token"
)

// unitKind classifies a top-level unit of a cell.
type unitKind int

const (
	unitImport unitKind = iota
	unitDecl
	unitStmt
)

// unit is one top-level piece of a cell: an import declaration, a
// declaration or a statement, as the byte range [start, end) of the cell,
// which starts at line, col (//line directives ignored).
type unit struct {
	kind       unitKind
	start, end int
	line, col  int
}

// headTokens is how many of a unit's first tokens classify reads: enough
// for a receiver, a method name and its "(".
const headTokens = 64

// splitUnits cuts a cell into top-level units: at bracket depth 0, every
// semicolon (written or inserted at a newline) ends a unit, except those of
// a for, if or switch header. A unit's first tokens tell its kind; `func (`
// followed by a receiver and a name is a method declaration, any other
// `func (` starts a function literal. It returns the scanner's first error
// (nil for none), at the position the scanner reports.
//
// It is the one splitter of a cell: the front end's sections and output
// order, the sandbox's units (Units) and Split.
func splitUnits(src []byte) ([]unit, *Error) {
	var units []unit
	err := cutUnits(src, func(u unit) { units = append(units, u) })
	return units, err
}

// cutUnits is splitUnits, handing each unit to add.
func cutUnits(src []byte, add func(unit)) *Error {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("cell", fset.Base(), len(src))
	var first *scanner.Error
	s.Init(file, src, func(pos token.Position, msg string) {
		if first == nil || pos.Offset < first.Pos.Offset {
			first = &scanner.Error{Pos: pos, Msg: msg}
		}
	}, 0)

	var kinds []token.Token // the first tokens of the current unit
	start, end := -1, 0
	var startPos token.Pos
	depth := 0
	header := false // inside the header of a for, if or switch: its semicolons do not end the unit
	flush := func() {
		if start >= 0 {
			p := file.PositionFor(startPos, false)
			add(unit{kind: classify(kinds), start: start, end: end, line: p.Line, col: p.Column})
		}
		kinds, start = kinds[:0], -1
	}
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch t {
		case token.FOR, token.IF, token.SWITCH:
			if depth == 0 {
				header = true
			}
		case token.LBRACE:
			if depth == 0 {
				header = false
			}
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 && !header {
				flush()
				continue
			}
		}
		n := len(lit)
		if n == 0 {
			n = len(t.String())
		}
		if start < 0 {
			start, startPos = off, pos
		}
		end = min(off+n, len(src))
		if len(kinds) < headTokens {
			kinds = append(kinds, t)
		}
	}
	flush()
	if first != nil {
		return &Error{Line: first.Pos.Line, Col: first.Pos.Column, Msg: first.Msg}
	}
	return nil
}

// classify decides a unit's kind from its first tokens.
func classify(ks []token.Token) unitKind {
	switch ks[0] {
	case token.IMPORT:
		return unitImport
	case token.TYPE, token.VAR, token.CONST:
		return unitDecl
	case token.FUNC:
		if len(ks) > 1 && ks[1] == token.IDENT {
			return unitDecl
		}
		if len(ks) > 1 && ks[1] == token.LPAREN && isMethodHead(ks[1:]) {
			return unitDecl
		}
	}
	return unitStmt
}

// isMethodHead reports whether ks, starting at '(', is a receiver list
// followed by a method name and its parameter (or type parameter) list.
func isMethodHead(ks []token.Token) bool {
	depth := 0
	for i, k := range ks {
		switch k {
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK:
			depth--
			if depth == 0 {
				return i+2 < len(ks) && ks[i+1] == token.IDENT && (ks[i+2] == token.LPAREN || ks[i+2] == token.LBRACK)
			}
		}
	}
	return false
}

// Unit is one top-level unit of a cell as the evaluator runs it: an import
// declaration, another declaration, or a statement.
type Unit struct {
	Start, End int  // byte range in the cell; a trailing comment is left out
	Line, Col  int  // 1-based, of Start (//line directives ignored)
	Decl       bool // a declaration (an import too); else a statement
	Import     bool // an import declaration
}

// Units cuts src, a cell, into its top-level units, with the scanner's
// first error as an *Error (nil for none).
func Units(src string) ([]Unit, *Error) {
	var out []Unit
	if err := cutUnits([]byte(src), func(u unit) { out = append(out, u.export()) }); err != nil {
		return nil, err
	}
	return out, nil
}

func (u unit) export() Unit {
	return Unit{Start: u.start, End: u.end, Line: u.line, Col: u.col, Decl: u.kind != unitStmt, Import: u.kind == unitImport}
}

// Split cuts Go source in the form of a cell (imports, declarations and
// statements in any order) into the pieces to give yaegi's Eval one by one:
// each import declaration, each run of consecutive declarations (one piece,
// so that they may refer to each other, as yaegi resolves names across one
// Eval but not across two), and each statement.
func Split(src string) []string {
	var out []string
	prevDecl := false
	us, _ := splitUnits([]byte(src))
	for _, u := range us {
		text := src[u.start:u.end]
		if u.kind == unitDecl && prevDecl {
			out[len(out)-1] += "\n" + text
			continue
		}
		out = append(out, text)
		prevDecl = u.kind == unitDecl
	}
	return out
}
