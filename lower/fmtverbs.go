package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// printFuncs gives, for the fmt and log functions that format their
// operands, the index of the format argument (-1 for none, then every
// operand is printed with %v) or of the first operand.
var printFuncs = map[string]struct{ format, first int }{
	"fmt.Printf": {0, 1}, "fmt.Sprintf": {0, 1}, "fmt.Errorf": {0, 1}, "fmt.Fprintf": {1, 2}, "fmt.Appendf": {1, 2},
	"log.Printf": {0, 1}, "log.Fatalf": {0, 1}, "log.Panicf": {0, 1},
	"fmt.Print": {-1, 0}, "fmt.Println": {-1, 0}, "fmt.Sprint": {-1, 0}, "fmt.Sprintln": {-1, 0},
	"fmt.Fprint": {-1, 1}, "fmt.Fprintln": {-1, 1}, "fmt.Append": {-1, 1}, "fmt.Appendln": {-1, 1},
	"log.Print": {-1, 0}, "log.Println": {-1, 0}, "log.Fatal": {-1, 0}, "log.Fatalln": {-1, 0},
	"log.Panic": {-1, 0}, "log.Panicln": {-1, 0},
}

// printCall works around yaegi handing fmt a value of an interpreted type
// as its underlying type, or, when the type has methods, as a wrapper: %T
// prints `int` for main.Count, %d of a type with a String method prints
// the wrapper (`{1 5505952}`), and a struct implementing error prints as a
// struct, also for %w. go/types knows the static type of each operand: %T
// of an operand of a concrete type becomes %s of the type's name, the
// numeric verbs get the operand converted to its basic underlying type (Go
// does not call String for them), and a value with an Error or String
// method is boxed (see boxMethods).
func (r *rewriter) printCall(n *ast.CallExpr) {
	pf, ok := r.printFunc(n)
	if !ok || pf.first > len(n.Args) {
		return
	}
	if n.Ellipsis.IsValid() {
		r.printSpread(n, pf) // fmtspread.go
		return
	}
	if r.printTuple(n, pf) { // fmtspread.go
		return
	}
	args := n.Args[pf.first:]
	if pf.format < 0 {
		for _, a := range args {
			if !r.callsRecover(a) {
				r.boxMethods(a)
			}
		}
		return
	}
	tv := r.code.info.Types[n.Args[pf.format]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return
	}
	format := constant.StringVal(tv.Value)
	verbs, ok := parseVerbs(format)
	if !ok {
		r.printIndexed(n, pf, format) // fmtindexed.go
		return
	}
	newFormat := []byte(format)
	changed := false
	slots := r.formatWrapped(n, verbs, args)
	for k, v := range verbs {
		if k >= len(args) {
			break
		}
		if slot, ok := slots[k]; ok {
			newFormat[v.at] = 'v'
			r.replaceNode(args[k], slot)
			changed = true
			continue
		}
		changed = r.fmtOperand(args[k], v, newFormat) || changed
	}
	if changed {
		r.replaceNode(n.Args[pf.format], strconv.Quote(string(newFormat)))
	}
	if len(slots) > 0 {
		r.rewrapErrorf(n, len(slots))
	}
}

// fmtOperand lowers operand a of a format call, printed by verb v; it
// reports whether it changed the verb in newFormat (%T became %s).
func (r *rewriter) fmtOperand(a ast.Expr, v verb, newFormat []byte) (changed bool) {
	t := r.typeOf(a)
	if t == nil || r.callsRecover(a) {
		return false
	}
	r.fieldNames = v.verb == 'v' && v.plus // fmtplusv.go
	defer func() { r.fieldNames = false }()
	if !r.mentionsCellType(t) && !r.holdsDynamic(t) && !(v.verb == 'v' && v.sharp) && !(v.verb == 'T' && types.IsInterface(t)) {
		if v.verb != 'T' && v.verb != 'p' && v.verb != 'w' && !v.sharp && types.IsInterface(t) {
			r.formatterBehind(a, t) // an error holding a Format type's value
		}
		return false // (what an any holds may be a struct of the session's: %#v names it)
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Default(t)
	}
	switch {
	case v.verb == 'T':
		if types.IsInterface(t) {
			if r.dynamicTypeName(a) { // fmttype.go
				newFormat[v.at] = 's'
				changed = true
			}
			return changed
		}
		if !pure(a) && r.code.info.Types[a].Value == nil {
			return false
		}
		newFormat[v.at] = 's'
		r.replaceNode(a, strconv.Quote(types.TypeString(substType(t, r.subst), func(p *types.Package) string { return p.Name() })))
		changed = true
	case v.verb == 'v' && v.sharp:
		if !r.sharpBasic(a, t) { // fmtsharpbasic.go
			r.boxGoSyntax(a, t) // Go syntax, type names included (fmtsharp.go)
		}
	case v.verb != 'p' && r.formats(t):
		r.boxDeep(a, t, false) // Format is called for every verb
	case strings.ContainsRune("vswxXq", v.verb) && r.boxMethods(a):
	case strings.ContainsRune("bcdoOUeEfFgGxXq", v.verb):
		b, ok := t.Underlying().(*types.Basic)
		if !ok {
			r.boxBare(a, t) // no methods for these verbs: parts unwrapped
			return false
		}
		if t == types.Type(b) {
			return false
		}
		r.replaceNode(a, b.Name()+"("+r.nodeText(a)+")")
	}
	return changed
}

// boxMethods boxes an operand of a concrete type of the session that
// implements error or fmt.Stringer in a function returning that interface:
// yaegi hands fmt such a value without its methods unless its fmt symbols
// came with yaegi's interface map, and boxing is the one conversion it gets
// right either way. A constant (`Green+1`) is boxed as a converted literal
// (yaegi boxed the expression as nil); a composite is rebuilt with its
// parts formatted by their methods (fmt calls them at any depth in Go,
// fmtdeep.go); an interface operand is boxed by what it holds. It reports
// whether it boxed a.
func (r *rewriter) boxMethods(a ast.Expr) bool {
	t := r.typeOf(a)
	if t == nil {
		return false
	}
	if types.IsInterface(t) {
		return r.boxDynamic(a, t)
	}
	if r.formats(t) {
		return r.boxDeep(a, t, false) // before a String or Error it has
	}
	if iface := r.methodIface(t); iface != "" && r.mentionsCellType(t) {
		r.boxAs(a, iface)
		return true
	}
	return r.boxDeep(a, t, false)
}

// boxAs boxes operand a in the interface iface.
func (r *rewriter) boxAs(a ast.Expr, iface string) {
	text := r.nodeText(a)
	if tv := r.code.info.Types[a]; tv.Value != nil {
		text = r.constText(types.TypeAndValue{Type: r.concrete(tv.Type), Value: tv.Value})
	} else if kept, ok := r.keptText(r.typeOf(a), text); ok {
		text = kept // %w's operand asserted or errors.As'd later (keepvalue.go)
	}
	r.replaceNode(a, "func() "+iface+" { return "+text+" }()")
}

// methodIface names the interface of fmt's that t implements, or "".
func (r *rewriter) methodIface(t types.Type) string {
	switch {
	case types.Implements(t, errorType):
		return "error"
	case types.Implements(t, stringerType):
		return r.ctx.qualify("fmt") + ".Stringer"
	}
	return ""
}

// boxDynamic boxes an interface operand by its dynamic value's methods,
// when the session declared methods a value in it could have.
func (r *rewriter) boxDynamic(a ast.Expr, t types.Type) bool {
	if !r.fmtDynamic() || r.methodIface(t) != "" && !r.ctx.declaredType(t) {
		// The interface itself is error or a Stringer: yaegi keeps its
		// method, but not a Format of what it holds (fmtformat.go).
		return r.formatterBehind(a, t)
	}
	// Comma-ok assertions to literal interfaces (fmtdeep.go): yaegi v0.16.1
	// gets a type switch on them wrong, and an assertion to error fails in
	// reflect.
	return r.boxDeep(a, t, false)
}

var (
	errorType    = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	stringerType = types.NewInterfaceType([]*types.Func{
		types.NewFunc(0, nil, "String", types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewVar(0, nil, "", types.Typ[types.String])), false)),
	}, nil).Complete()
)

// printFunc returns where the format and the operands of n are, if n
// calls one of printFuncs.
func (r *rewriter) printFunc(n *ast.CallExpr) (pf struct{ format, first int }, ok bool) {
	sel, isSel := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !isSel {
		return pf, false
	}
	fn, isFn := r.code.info.Uses[sel.Sel].(*types.Func)
	if !isFn || fn.Pkg() == nil {
		return pf, false
	}
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		// A *log.Logger's methods take their operands as log's functions do.
		if p, isPtr := recv.Type().(*types.Pointer); !isPtr || types.TypeString(p.Elem(), nil) != "log.Logger" {
			return pf, false
		}
	}
	pf, ok = printFuncs[fn.Pkg().Path()+"."+fn.Name()]
	return pf, ok
}

// mentionsCellType reports whether t involves a named type of the session
// (the interpreter's own types; those of compiled packages print right).
func (r *rewriter) mentionsCellType(t types.Type) bool {
	found := false
	var visit func(t types.Type)
	visit = func(t types.Type) {
		if found || t == nil {
			return
		}
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if r.ctx.chk.local(t.Obj().Pkg()) {
				found = true
			}
			for i := range t.TypeArgs().Len() {
				visit(t.TypeArgs().At(i))
			}
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.TypeParam:
			visit(r.concrete(t))
		}
	}
	visit(t)
	return found
}

// pure reports an operand whose evaluation has no effect: leaving it out
// changes nothing.
func pure(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		return pure(e.X)
	case *ast.UnaryExpr:
		return e.Op == token.AND && pure(e.X)
	case *ast.KeyValueExpr:
		return pure(e.Key) && pure(e.Value)
	case *ast.CompositeLit:
		for _, x := range e.Elts {
			if !pure(x) {
				return false
			}
		}
		return true
	}
	return false
}

// verb is one formatting verb of a printf format: its rune and the byte
// offset of that rune in the format.
type verb struct {
	verb  rune
	at    int
	sharp bool // the # flag
	plus  bool // the + flag
}

// parseVerbs lists the verbs of format, one per operand; ok is false for
// formats that number their operands or take widths from them.
func parseVerbs(format string) ([]verb, bool) {
	var verbs []verb
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		sharp, plus := false, false
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			sharp = sharp || format[i] == '#'
			plus = plus || format[i] == '+'
			i++
		}
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
			i++
		}
		if i >= len(format) {
			break
		}
		switch format[i] {
		case '%':
			continue
		case '*', '[':
			return nil, false
		}
		verbs = append(verbs, verb{rune(format[i]), i, sharp, plus})
	}
	return verbs, true
}

// declaresFmtMethods reports whether a cell of the session, or the
// current one, declares a method String, Error, Format or GoString.
func (c *checked) declaresFmtMethods() bool {
	if c.fmtMethods == 0 {
		c.fmtMethods = -1
		if c.sessionFmt {
			c.fmtMethods = 1
		}
		for _, d := range c.cur.decls {
			if f, ok := d.(*ast.FuncDecl); ok && f.Recv != nil && fmtMethodNames[f.Name.Name] {
				c.fmtMethods = 1
			}
		}
	}
	return c.fmtMethods > 0
}
