package sandbox

import (
	"go/ast"
	"go/scanner"
	"go/token"
)

// unitKind says how a top-level unit of a cell is evaluated.
type unitKind int

const (
	unitDecl unitKind = iota // import, func, method, type, var, const
	unitStmt                 // any statement, run like the body of main
)

// unit is one top-level piece of a cell, with where it starts in the cell so
// that the interpreter's positions can be the user's.
type unit struct {
	imp *importParse // an import unit's specs, once parsed (importSpecs)

	kind    unitKind
	imports bool   // a decl unit that is an import
	text    string // the unit's source
	start   int    // byte offsets of text in the cell
	end     int
	line    int  // 1-based line of the unit's first byte in the cell
	col     int  // 1-based column of the unit's first byte
	isExpr  bool // a statement that is a lone expression: its value is shown

	// parsed says the unit parsed where the interpreter puts it
	// (parseUnit), with its declarations or statements: a cell is parsed
	// once for the syntax check, the expression test and the names learnt.
	parsed bool
	decls  []ast.Decl // of a unitDecl
	stmts  []ast.Stmt // of a unitStmt
}

// splitCell cuts a cell into its top-level units. yaegi v0.16.1 parses one
// Eval that starts with a declaration as a file and then rejects statements,
// so imports, declarations and statements typed together are run one unit at a
// time. A scanner error is returned as the user's error.
func splitCell(src string) ([]unit, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)

	type tok struct {
		pos token.Pos
		tok token.Token
		lit string
	}
	var units []unit
	var cur []tok
	depth := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		// The unit ends with its last token: a trailing comment is left out, so
		// the unit can be wrapped on its line.
		last := cur[len(cur)-1]
		end := file.Offset(last.pos) + len(last.lit)
		if last.lit == "" {
			end += len(last.tok.String())
		}
		start := file.Offset(cur[0].pos)
		p := file.PositionFor(cur[0].pos, false) // //line directives do not move the unit
		u := unit{text: src[start:end], start: start, end: end, line: p.Line, col: p.Column}
		u.kind, u.imports = classify(cur[0].tok, func(i int) token.Token {
			if i < len(cur) {
				return cur[i].tok
			}
			return token.EOF
		})
		units = append(units, u)
		cur = cur[:0]
	}
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			flush()
			break
		}
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.SEMICOLON:
			if depth <= 0 {
				flush()
				continue
			}
		}
		cur = append(cur, tok{pos, t, lit})
	}
	if errs.Len() > 0 {
		errs.Sort()
		return nil, errorAt(errs[0].Pos.Line, errs[0].Pos.Column, errs[0].Msg)
	}
	units = mergeHeaders(src, units)
	for i := range units {
		u := &units[i]
		_, u.isExpr = u.onlyStmt().(*ast.ExprStmt)
	}
	return units, nil
}

// onlyStmt is the statement of a parsed statement unit of one; else nil.
func (u *unit) onlyStmt() ast.Stmt {
	if u.kind == unitStmt && u.parsed && len(u.stmts) == 1 {
		return u.stmts[0]
	}
	return nil
}

// classify decides whether a unit is a declaration from its first tokens. A
// unit starting with "func (" is a method only when the receiver's closing
// parenthesis is followed by a name and "(": "func(x int) int {...}(1)" is a
// call of a function literal.
func classify(first token.Token, at func(int) token.Token) (unitKind, bool) {
	switch first {
	case token.IMPORT:
		return unitDecl, true
	case token.TYPE, token.VAR, token.CONST:
		return unitDecl, false
	case token.FUNC:
		switch at(1) {
		case token.IDENT:
			return unitDecl, false
		case token.LPAREN:
			depth := 0
			for i := 1; ; i++ {
				switch at(i) {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
					if depth == 0 {
						if at(i+1) == token.IDENT && (at(i+2) == token.LPAREN || at(i+2) == token.LBRACK) {
							return unitDecl, false
						}
						return unitStmt, false
					}
				case token.EOF:
					return unitStmt, false
				}
			}
		}
	}
	return unitStmt, false
}

// mergeHeaders joins units cut at the semicolons of a statement header
// ("for i := 0; i < 3; i++ {", "if x := f(); x > 0 {"): a unit that does not
// parse on its own is joined with the ones after it until the join parses.
// A unit that never does is left as it was, for checkSyntax to report.
func mergeHeaders(src string, units []unit) []unit {
	var out []unit
	for i := 0; i < len(units); i++ {
		u := units[i]
		if parseUnit(&u) == nil {
			out = append(out, u)
			continue
		}
		merged := false
		for j := i + 1; j < len(units); j++ {
			m := u
			m.end = units[j].end
			m.text = src[m.start:m.end]
			if parseUnit(&m) == nil {
				out = append(out, m)
				i = j
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, u)
		}
	}
	return out
}
