package sandbox

import (
	"context"
	"errors"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
)

// lowerTriggers are the words whose presence in a cell may need the front
// end: yaegi v0.16.1 cannot run range over int or func, the builtins min,
// max and clear, generics, or the generic packages; it gets wrong %T of
// interpreted types (and their names in %#v), defers at top level and in loops, and blocks that
// shadow globals or capture loop variables ("{"), a type declared again,
// complex and wide constants, and builtins given one call's results; it
// has no package unsafe, whose constants the front end writes (unsafeconst.go);
// it cannot initialize a package variable that names an earlier cell's
// ("var ", lower/varinitref.go).
// (Values with Error or
// String methods handed to fmt, and method values, need a session that
// declared a method: then every cell is lowered.) A cell with none of them
// goes to yaegi as typed: the type-check costs milliseconds on a long
// session, and the round trip of `1+2` must stay under one.
var lowerTriggers = []string{"range", "min", "max", "clear", "slices", "maps", "cmp", "iter", "[", "any", "comparable", "~",
	"{", "%T", "%#v", "defer", "print", "Fatal", "type ", "complex", "imag(", "real(", "<<", "copy(", "delete(", "unsafe", "var "}

// needsLowering is the cheap syntactic test before the typed front end.
func needsLowering(cell string, lowerAll bool) bool {
	if lowerAll {
		return true
	}
	for _, w := range lowerTriggers {
		if strings.Contains(cell, w) {
			return true
		}
	}
	return false
}

// genericDecl guesses whether a cell declares a generic function or type,
// or a method: from then on every cell may instantiate one implicitly, or
// take a method value (Interp.generics then means "lower every cell").
func genericDecl(cell string) bool {
	return strings.Contains(cell, "[") && (strings.Contains(cell, "func") || strings.Contains(cell, "type")) ||
		strings.Contains(cell, "func (")
}

// variadicDecl guesses whether a cell declares a variadic function: a later
// `f(xs)` passing one slice to it is lowered (yaegi spread it, see
// lower/variadicslice.go), and has no word of lowerTriggers.
func variadicDecl(cell string) bool {
	return strings.Contains(cell, "func") && strings.Contains(cell, "...")
}

// lowerCell runs the typed front end on cell when it may need it, and
// returns its plan (what the interpreter runs, cut into units, with the
// map back to the cell), with back, which moves the position of an error
// the interpreter reports in that code to the user's cell. A type error is
// the user's, at the user's line and column. A nil plan: the cell runs as
// typed.
func (in *Interp) lowerCell(cell string) (plan *lower.Plan, back func(error) error, err error) {
	if in.lower == nil || !needsLowering(cell, in.generics) {
		return nil, sameError, nil
	}
	p, err := in.lower.Plan(cell)
	var le *lower.Error
	var ue *lower.UnsafeError
	if errors.As(err, &ue) {
		return nil, sameError, errorAt(ue.Line, ue.Col, deniedMsg("unsafe"))
	}
	if errors.As(err, &le) && !strings.HasPrefix(le.Msg, "expected ") {
		return nil, sameError, errorAt(le.Line, le.Col, le.Msg)
	}
	if err != nil || p.Src == cell {
		// The cell parsed here, so a parse error there, or any other
		// failure, is a limitation of the front end: let yaegi judge.
		return nil, sameError, nil
	}
	if p.Map == nil {
		return p, sameError, nil
	}
	return p, func(err error) error { return userError(err, p.Map) }, nil
}

func sameError(err error) error { return err }

// runBefore runs the units of cell before the line of err, the front end's
// type error, then returns err: the front end checks a cell whole, and
// yaegi runs a cell unit by unit until one fails, so without this a
// script's `fmt.Println("start")` before a type error would print only
// when no word of lowerTriggers made the cell go through the front end.
func (in *Interp) runBefore(ctx context.Context, cell string, units []unit, show bool, err error) error {
	var ev *EvalError
	if !errors.As(err, &ev) || ev.Line == 0 {
		return err
	}
	end := 0 // of the units that end on a line before the error's
	for _, u := range units {
		if 1+strings.Count(cell[:u.end], "\n") >= ev.Line {
			break
		}
		end = u.end
	}
	if end == 0 {
		return err
	}
	if perr := in.eval(ctx, cell[:end], show); perr != nil {
		return perr
	}
	return err
}

// userError moves the position of an error of the interpreter in lowered
// code to the user's cell. Code the lowering added has no place there: the
// error keeps its message without a position.
func userError(err error, m *lower.SourceMap) error {
	var ev *EvalError
	if !errors.As(err, &ev) {
		return err
	}
	out := *ev
	out.Msg = lower.CleanMessage(ev.Msg)
	if ev.Line > 0 {
		line, col, ok := m.Pos(ev.Line, ev.Col)
		if !ok {
			line, col = 0, 0
		}
		out.Line, out.Col = line, col
	}
	return &out
}

// committed tells the front end that cell ran: context for later cells.
func (in *Interp) committed(cell string) {
	if in.lower == nil {
		return
	}
	in.lower.Commit(cell)
	if genericDecl(cell) || variadicDecl(cell) || in.lower.LastRedeclaresType() || in.lower.DeclaredSelfType() || in.lower.RenamedPredeclared() {
		in.generics = true
	}
}

// packageClause is the package clause of the uploaded package at path, as
// the front end checked it ("" without one): the name yaegi binds for it.
func (in *Interp) packageClause(path string) string {
	if in.lower == nil {
		return ""
	}
	return in.lower.PackageName(path)
}

// lowerSymbols are the standard symbols newer than yaegi's Go 1.22 tables
// (strings.Lines, os.CopyFS, ...), kept to the allowed packages.
func lowerSymbols(a Allowlist) interp.Exports {
	out := interp.Exports{}
	for key, syms := range lower.Symbols {
		if path, _, ok := yaegix.SplitKey(key); ok && a.Allowed(path) {
			out[key] = syms
		}
	}
	return out
}
