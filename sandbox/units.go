package sandbox

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/pkgname"
	"github.com/replhost/replhost/internal/yaegix"
	"github.com/traefik/yaegi/interp"
)

// groupUnits joins runs of declarations into one unit, so that the types and
// functions of one cell may refer to each other in any order, as in a file.
// Imports may only open such a run, as in a file. The joined text is the
// cell's own, so positions stay the user's.
func groupUnits(src string, units []unit) []unit {
	var out []unit
	for _, u := range units {
		if n := len(out); n > 0 && u.kind == unitDecl && out[n-1].kind == unitDecl && (!u.imports || out[n-1].imports) {
			prev := &out[n-1]
			prev.end = u.end
			prev.text = src[prev.start:prev.end]
			prev.imports = prev.imports && u.imports
			prev.parsed = prev.parsed && u.parsed
			prev.decls = append(prev.decls[:len(prev.decls):len(prev.decls)], u.decls...)
			prev.node = nil // yaegi parses the run's text as one file
			continue
		}
		out = append(out, u)
	}
	return out
}

// checkImports refuses standard packages outside the allowlist before
// anything of the cell runs, with the user's position.
func (in *Interp) checkImports(units []unit) error {
	for i := range units {
		u := &units[i]
		specs, _ := u.importSpecs()
		for _, spec := range specs {
			path, _ := strconv.Unquote(spec.Path.Value)
			if in.allow.Denied(path) && !(path == "unsafe" && in.foldsUnsafe()) {
				line, col := u.userPos(spec.Path.Pos())
				return errorAt(line, col, deniedMsg(path))
			}
		}
	}
	return nil
}

// deniedMsg is the refusal of a package outside the allowlist.
func deniedMsg(path string) string {
	return "package " + path + " is not allowed in a session (the host's --allow-pkg adds packages)"
}

// padTo is the blank text that puts a unit at its line and column.
func padTo(u unit) string {
	return strings.Repeat("\n", u.line-1) + strings.Repeat(" ", u.col-1)
}

// checkSyntax parses each unit as the interpreter will (a declaration in a
// file, a statement in a function body) so that a syntax error is reported
// by go/parser at the user's position, not inside yaegi's wrapping.
func checkSyntax(yi *interp.Interpreter, units []unit) error {
	for i := range units {
		if units[i].parsed {
			continue
		}
		if err := parseUnit(yi, &units[i]); err != nil {
			return err
		}
	}
	return nil
}

// parseUnit parses one unit where the interpreter will put it and keeps
// its declarations or statements; it returns go/parser's first error at
// the user's position. With an interpreter, the parse is yaegi's own
// (u.node: yaegi compiles this tree, the unit is not parsed again); when
// that one fails (a declaration error, which only yaegi's mode reports,
// or a syntax error), the unit is parsed again as before: a syntax error
// is reported from there, and a declaration error is left to yaegi,
// which reports it in its own words.
func parseUnit(yi *interp.Interpreter, u *unit) error {
	u.parsed, u.node, u.decls, u.stmts = false, nil, nil, nil
	if yi != nil && yaegiParse(yi, u) {
		return nil
	}
	src, shift := "package p\n"+padTo(*u)+u.text+"\n", 1
	if u.kind == unitStmt {
		src, shift = "package p\nfunc _() {\n"+padTo(*u)+u.text+"\n}", 2
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err == nil {
		u.parsed = true
		if u.kind == unitStmt {
			u.stmts = f.Decls[0].(*ast.FuncDecl).Body.List
		} else {
			u.decls = f.Decls
		}
		return nil
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		p := list[0].Pos
		if p.Line-shift < 1 {
			return &EvalError{Msg: list[0].Msg}
		}
		return errorAt(p.Line-shift, p.Column, list[0].Msg)
	}
	return nil
}

// yaegiParse parses u as yaegi's Eval would parse the text evalUnit
// gives it (one line down, the first line being yaegi's), into yi's
// FileSet; false if that parse fails or is left to yaegi (yaegix).
func yaegiParse(yi *interp.Interpreter, u *unit) bool {
	src := "\n" + padTo(*u) + u.text + "\n"
	if u.kind == unitStmt {
		body, err := yaegix.ParseStmts(yi, src)
		if err != nil || body == nil {
			return false
		}
		u.parsed, u.node, u.stmts = true, body, body.List
		return true
	}
	f, err := yaegix.ParseDecls(yi, src)
	if err != nil || f == nil {
		return false
	}
	u.parsed, u.node, u.decls = true, f, f.Decls
	return true
}

// dropReimports blanks, in src, the import specs of packages the session
// has already imported under the same name: yaegi rejects a second import
// ("fmt/_.go redeclared in this block") where a REPL user simply re-imports.
// Blanks keep every other position. It returns src and units unchanged
// when there is nothing to drop; else the new text and its units: an
// import unit left with no spec is gone, one left with some is parsed
// again (the others are as they were: blanks keep their places).
func (in *Interp) dropReimports(src string, units []unit) (string, []unit) {
	in.names.mu.Lock()
	have := make(map[string]string, len(in.names.imports))
	for k, v := range in.names.imports {
		have[k] = v
	}
	in.names.mu.Unlock()
	if len(have) == 0 {
		return src, units
	}
	b := []byte(src)
	changed := false
	gone := make([]int, 0, len(units)) // 0 kept, 1 blanked in part, 2 blanked whole
	for i := range units {
		u := &units[i]
		specs, _ := u.importSpecs()
		kept, state := 0, 0
		for _, spec := range specs {
			path, _ := strconv.Unquote(spec.Path.Value)
			name := pkgname.Of(spec, in.packageClause)
			if have[name] != path || name == "_" || name == "." {
				kept++
				continue
			}
			end := u.cellOffset(spec.End())
			for end < u.end && (b[end] == ' ' || b[end] == '\t') {
				end++
			}
			if end < u.end && b[end] == ';' {
				end++
			}
			blank(b, u.cellOffset(spec.Pos()), end)
			changed, state = true, 1
		}
		if kept == 0 && len(specs) > 0 {
			blank(b, u.start, u.end)
			state = 2
		}
		gone = append(gone, state)
	}
	if !changed {
		return src, units
	}
	typed := string(b)
	out := make([]unit, 0, len(units))
	for i, u := range units {
		switch gone[i] {
		case 2:
			continue
		case 1:
			u = unit{kind: u.kind, imports: u.imports, text: typed[u.start:u.end], start: u.start, end: u.end, line: u.line, col: u.col}
			parseUnit(in.yi, &u)
		}
		out = append(out, u)
	}
	return typed, out
}

// blank replaces b[from:to] by spaces, keeping newlines (and so positions).
func blank(b []byte, from, to int) {
	for i := from; i < to; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}

// declaresNothing reports a cell of statements only, none of which
// declares a name at top level (`x := e`, var, a label): the typed front
// end, which keeps the cells that give later ones their context, has
// nothing to learn from it, and is spared parsing it (`c++; c`).
func declaresNothing(units []unit) bool {
	for _, u := range units {
		if u.kind != unitStmt || !u.parsed {
			return false
		}
		for _, st := range u.stmts {
			switch st := st.(type) {
			case *ast.DeclStmt, *ast.LabeledStmt:
				return false
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					return false
				}
			}
		}
	}
	return true
}
