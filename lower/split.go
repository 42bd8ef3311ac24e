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
// declaration or a statement, as the byte range [start, end) of the cell.
type unit struct {
	kind       unitKind
	start, end int
}

// splitUnits cuts a cell into top-level units: at bracket depth 0, every
// semicolon (written or inserted at a newline) ends a unit. A unit's first
// tokens tell its kind; `func (` followed by a receiver and a name is a
// method declaration, any other `func (` starts a function literal.
func splitUnits(src []byte) []unit {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	s.Init(file, src, nil, 0)

	var units []unit
	var kinds []token.Token // the first tokens of the current unit
	start, end := -1, 0
	depth := 0
	header := false // inside the header of a for, if or switch: its semicolons do not end the unit
	flush := func() {
		if start >= 0 {
			units = append(units, unit{kind: classify(kinds), start: start, end: end})
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
			start = off
		}
		end = min(off+n, len(src))
		if len(kinds) < 24 {
			kinds = append(kinds, t)
		}
	}
	flush()
	return units
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
// followed by a method name and its parameter list.
func isMethodHead(ks []token.Token) bool {
	depth := 0
	for i, k := range ks {
		switch k {
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK:
			depth--
			if depth == 0 {
				return i+2 < len(ks) && ks[i+1] == token.IDENT && ks[i+2] == token.LPAREN
			}
		}
	}
	return false
}

// Split cuts Go source in the form of a cell (imports, declarations and
// statements in any order) into the pieces to give yaegi's Eval one by one:
// each import declaration, each run of consecutive declarations (one piece,
// so that they may refer to each other, as yaegi resolves names across one
// Eval but not across two), and each statement.
func Split(src string) []string {
	var out []string
	prevDecl := false
	for _, u := range splitUnits([]byte(src)) {
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
