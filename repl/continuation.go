package repl

import (
	"go/scanner"
	"go/token"
)

// NeedsMore reports whether src is an unfinished cell that the next line
// continues: a bracket, brace or parenthesis still open, a raw string or a
// block comment not closed, or a last token that cannot end a statement (a
// binary operator, a comma, a dot). Decided by go/scanner, so brackets inside
// strings, runes and comments do not count.
func NeedsMore(src string) bool {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	unterminated := false
	var s scanner.Scanner
	s.Init(file, []byte(src), func(_ token.Position, msg string) {
		if msg == "raw string literal not terminated" || msg == "comment not terminated" {
			unterminated = true
		}
	}, 0)
	depth := 0
	last := token.ILLEGAL
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // the newline the scanner inserted: not the user's
		}
		last = tok
	}
	if unterminated || depth > 0 {
		return true
	}
	return continues(last)
}

// continues reports whether a line ending in tok cannot be complete.
func continues(tok token.Token) bool {
	switch tok {
	case token.COMMA, token.PERIOD, token.ASSIGN, token.DEFINE, token.ARROW,
		token.LAND, token.LOR:
		return true
	}
	return tok.IsOperator() && tok.Precedence() > 0 || tok >= token.ADD_ASSIGN && tok <= token.AND_NOT_ASSIGN
}
