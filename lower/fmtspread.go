package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// A print call that passes its operands as one slice (`fmt.Println(args...)`,
// `fmt.Printf(format, args...)`, the body of every logging helper) hands fmt
// the []any as yaegi made it: a value of the session's types with methods
// in it is yaegi's wrapper, which fmt prints as `{0xc000… {…}}`. The front
// end cannot see the operands; it hands the slice to a native walk
// (fmtmirror.Args, FormatArgs) with the session's type switch (fmtdeep.go),
// which formats each operand by its String, Error or Format method, or
// unwraps it, by the verb the format gives it when it runs. A helper is
// often declared before the types it prints: so this is done in every
// session, and the type switch asks the registry of the session's types
// (fmtregistry.go).

func init() {
	rt := Runtime[rtPath+"/rt"]
	rt["MirrorArgs"] = reflect.ValueOf(fmtmirror.Args)
	rt["MirrorFormatArgs"] = reflect.ValueOf(fmtmirror.FormatArgs)
	rt["AsError"] = reflect.ValueOf((*fmtmirror.AsError)(nil))
}

// printSpread rewrites the spread operand of n, a call of a print
// function described by pf.
func (r *rewriter) printSpread(n *ast.CallExpr, pf struct{ format, first int }) {
	if len(n.Args) != pf.first+1 {
		return
	}
	spread := n.Args[pf.first]
	if r.callsRecover(spread) || pf.format >= 0 && r.callsRecover(n.Args[pf.format]) {
		return
	}
	st, ok := r.typeOf(spread).Underlying().(*types.Slice)
	if !ok || !types.IsInterface(st.Elem()) {
		return
	}
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: spread.Pos()}
	m.rt = r.ctx.qualify(rtPath)
	conv := m.convName(false)
	var call string
	switch {
	case pf.format < 0:
		call = m.rt + ".MirrorArgs(" + r.nodeText(spread) + ", " + conv + ")"
	case pureFormat(n.Args[pf.format]):
		call = m.rt + ".MirrorFormatArgs(" + r.nodeText(n.Args[pf.format]) + ", " + r.nodeText(spread) + ", " + conv + ")"
	default:
		r.printSpreadOnce(n, pf, m, conv)
		return
	}
	if m.conv != "nil" {
		call = "func(" + m.conv + " func(any) any) []any { return " + call + " }(" + m.convText() + ")"
	}
	if len(call) > maxMirrorText {
		return
	}
	r.replaceNode(spread, call)
}

// printSpreadOnce is printSpread of a call whose format has effects or
// costs (`fmt.Printf(formats[k()], args...)`, `log.Printf(f(), a...)`):
// the format must be evaluated once, before the operands as in Go, so
// the call becomes a func literal called with the format and the slice,
// which hands both to the walk and the print function. The function and
// the operands before the format (Fprintf's writer) stay inside it, so
// they must be pure: their evaluation moves after the format's.
func (r *rewriter) printSpreadOnce(n *ast.CallExpr, pf struct{ format, first int }, m *mirror, conv string) {
	if !pure(n.Fun) {
		return
	}
	var lead []string
	for _, a := range n.Args[:pf.format] {
		if !pure(a) {
			return
		}
		lead = append(lead, r.nodeText(a)+", ")
	}
	sig, ok := r.typeOf(n.Fun).(*types.Signature)
	if !ok {
		return
	}
	f, a := r.ctx.name("format"), r.ctx.name("args")
	params, convArg := "", ""
	if m.conv != "nil" {
		// A parameter: the type switch is made once, before the call.
		params, convArg = ", "+m.conv+" func(any) any", ", "+m.convText()
	}
	args := m.rt + ".MirrorFormatArgs(" + f + ", " + a + ", " + conv + ")"
	body := r.nodeText(n.Fun) + "(" + strings.Join(lead, "") + f + ", " + args + "...)"
	var results []string
	for i := range sig.Results().Len() {
		results = append(results, r.ctx.typeText(sig.Results().At(i).Type(), nil))
	}
	switch len(results) {
	case 0:
	case 1:
		body = results[0] + " { return " + body
	default:
		body = "(" + strings.Join(results, ", ") + ") { return " + body
	}
	if len(results) == 0 {
		body = "{ " + body
	}
	// In parentheses: a cell's statement that starts with `func` would be
	// taken for a declaration.
	call := "(func(" + f + " string, " + a + " []any" + params + ") " + body + " })(" + r.nodeText(n.Args[pf.format]) + ", " + r.nodeText(n.Args[pf.first]) + convArg + ")"
	if len(call) > maxMirrorText {
		return
	}
	r.replaceNode(n, call)
}

// printTuple rewrites the one operand of n, a call of a print function
// without a format, when it is a call with several results
// (`fmt.Println(pair())`): the results are gathered in an []any and
// printed as a spread operand is (printSpread), since no operand of its
// own can be boxed.
func (r *rewriter) printTuple(n *ast.CallExpr, pf struct{ format, first int }) bool {
	if pf.format >= 0 || pf.first != 0 || len(n.Args) != 1 || n.Ellipsis.IsValid() || r.callsRecover(n.Args[0]) {
		return false
	}
	tuple, ok := r.typeOf(n.Args[0]).(*types.Tuple)
	if !ok || tuple.Len() < 2 {
		return false
	}
	needed := false
	names := make([]string, tuple.Len())
	for i := range tuple.Len() {
		t := substType(tuple.At(i).Type(), r.subst)
		needed = needed || r.mentionsCellType(t) || types.IsInterface(t) && r.fmtDynamic()
		names[i] = r.ctx.name("res")
	}
	if !needed {
		return false
	}
	m := &mirror{r: r, path: map[*types.Named]int{}, pos: n.Args[0].Pos()}
	m.rt = r.ctx.qualify(rtPath)
	conv := m.convName(false)
	list := strings.Join(names, ", ")
	results := "func() []any { " + list + " := " + r.nodeText(n.Args[0]) + "; return []any{" + list + "} }()"
	call := m.rt + ".MirrorArgs(" + results + ", " + conv + ")"
	if m.conv != "nil" {
		call = "func(" + m.conv + " func(any) any) []any { return " + call + " }(" + m.convText() + ")"
	}
	if len(call) > maxMirrorText {
		return false
	}
	r.replaceNode(n.Args[0], call+"...")
	return true
}

// pureFormat reports a format whose evaluation has no effect, so it may be
// evaluated twice: names, literals and their concatenations.
func pureFormat(e ast.Expr) bool {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok {
		return b.Op == token.ADD && pureFormat(b.X) && pureFormat(b.Y)
	}
	return pure(e)
}

// fmt's Print and Sprint put a space between two operands when neither is
// a string (by its kind): a value formatted by its String or Error method
// is handed over as a string kind (Formatted) only when its own type is
// one, else as a struct (formattedValue) that prints the same.

func init() {
	rt := Runtime[rtPath+"/rt"]
	rt["StringerV"] = reflect.ValueOf(StringerV)
	rt["ErrorerV"] = reflect.ValueOf(ErrorerV)
}

type formattedValue struct{ s string }

func (f formattedValue) String() string { return f.s }

type formattedErrorValue struct{ s string }

func (f formattedErrorValue) Error() string { return f.s }

// StringerV returns s as a fmt.Stringer of no string kind.
func StringerV(s string) any { return formattedValue{s} }

// ErrorerV returns s as an error of no string kind.
func ErrorerV(s string) any { return formattedErrorValue{s} }

// formattedFn is the rt function that hands fmt a value of type t
// formatted by its method: error (Errorer) or String (Stringer), of t's
// kind.
func formattedFn(t types.Type, isErr bool) string {
	name := "Stringer"
	if isErr {
		name = "Errorer"
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
		return name
	}
	return name + "V"
}
