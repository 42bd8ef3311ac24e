package sandbox

import (
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/pkgname"
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
			continue
		}
		out = append(out, u)
	}
	return out
}

// checkImports refuses standard packages outside the allowlist before
// anything of the cell runs, with the user's position.
func (in *Interp) checkImports(units []unit) error {
	for _, u := range units {
		if !u.imports {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", "package p\n"+padTo(u)+u.text, parser.ImportsOnly)
		if err != nil {
			continue // the syntax check reports it
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if in.allow.Denied(path) {
				p := fset.PositionFor(spec.Path.Pos(), false)
				return errorAt(p.Line-1, p.Column, "package "+path+" is not allowed in a session (the host's --allow-pkg adds packages)")
			}
		}
	}
	return nil
}

// padTo is the blank text that puts a unit at its line and column.
func padTo(u unit) string {
	return strings.Repeat("\n", u.line-1) + strings.Repeat(" ", u.col-1)
}

// checkSyntax parses each unit as the interpreter will (a declaration in a
// file, a statement in a function body) so that a syntax error is reported
// by go/parser at the user's position, not inside yaegi's wrapping.
func checkSyntax(units []unit) error {
	for _, u := range units {
		if err := parseUnit(u); err != nil {
			return err
		}
	}
	return nil
}

// parseUnit parses one unit where the interpreter will put it, and returns
// go/parser's first error at the user's position.
func parseUnit(u unit) error {
	src, shift := "package p\n"+padTo(u)+u.text+"\n", 1
	if u.kind == unitStmt {
		src, shift = "package p\nfunc _() {\n"+padTo(u)+u.text+"\n}", 2
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
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

// dropReimports blanks, in src, the import specs of packages the session
// has already imported under the same name: yaegi rejects a second import
// ("fmt/_.go redeclared in this block") where a REPL user simply re-imports.
// Blanks keep every other position. It returns src unchanged when there is
// nothing to drop.
func (in *Interp) dropReimports(src string, units []unit) string {
	in.names.mu.Lock()
	have := make(map[string]string, len(in.names.imports))
	for k, v := range in.names.imports {
		have[k] = v
	}
	in.names.mu.Unlock()
	if len(have) == 0 {
		return src
	}
	b := []byte(src)
	changed := false
	for _, u := range units {
		if !u.imports {
			continue
		}
		fset := token.NewFileSet()
		const head = "package p\n"
		f, err := parser.ParseFile(fset, "", head+u.text, parser.ImportsOnly)
		if err != nil {
			continue
		}
		off := func(p token.Pos) int { return u.start + fset.Position(p).Offset - len(head) }
		kept := 0
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			name := pkgname.Of(spec, in.packageClause)
			if have[name] != path || name == "_" || name == "." {
				kept++
				continue
			}
			end := off(spec.End())
			for end < u.end && (b[end] == ' ' || b[end] == '\t') {
				end++
			}
			if end < u.end && b[end] == ';' {
				end++
			}
			blank(b, off(spec.Pos()), end)
			changed = true
		}
		if kept == 0 && len(f.Imports) > 0 {
			blank(b, u.start, u.end)
		}
	}
	if !changed {
		return src
	}
	return string(b)
}

// blank replaces b[from:to] by spaces, keeping newlines (and so positions).
func blank(b []byte, from, to int) {
	for i := from; i < to; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}
