package lower

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A format with explicit operand indexes (`%[1]v %[1]T`, `%[2]d %[1]d`)
// may print one operand by several verbs, which printCall's one lowering
// per operand cannot serve: %T needs the type's name where %v needs the
// value boxed with its String. printIndexed writes every directive with
// its index, so that each can be changed alone, lowers each operand for
// the verbs that print it, and prints a %T of an operand that other verbs
// print too from an operand of its own, appended: the type's name (or,
// for an interface, the code that names what it holds, when the operand
// may be evaluated twice). Formats it cannot serve this way (a * width,
// a bad index, different verbs for one operand) are left as they are.

// indexedVerb is one directive of a format and the operand it prints.
type indexedVerb struct {
	verb
	start, end int    // the directive in the format, from % to its verb
	spec       string // its flags, width and precision, indexes dropped
	arg        int    // its operand, from 0
}

// parseIndexed lists the directives of format with their operands as
// fmt's doPrintf assigns them; ok is false for a * width or precision, a
// malformed index or a directive without a verb, and when no directive
// has an index (parseVerbs serves those).
func parseIndexed(format string) (verbs []indexedVerb, ok bool) {
	argNum, indexed := 0, false
	index := func(i int) (int, bool) { // format[i] is '['
		j := strings.IndexByte(format[i:], ']')
		if j < 0 {
			return i, false
		}
		n, err := strconv.Atoi(format[i+1 : i+j])
		if err != nil || n < 1 {
			return i, false
		}
		argNum, indexed = n-1, true
		return i + j + 1, true
	}
	digits := func(i int) int {
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		return i
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		start := i
		i++
		var spec strings.Builder
		sharp, plus := false, false
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			sharp = sharp || format[i] == '#'
			plus = plus || format[i] == '+'
			spec.WriteByte(format[i])
			i++
		}
		afterIndex := false
		if i < len(format) && format[i] == '[' {
			if i, ok = index(i); !ok {
				return nil, false
			}
			afterIndex = true
		}
		w := digits(i)
		spec.WriteString(format[i:w])
		i = w
		if i < len(format) && format[i] == '.' {
			spec.WriteByte('.')
			i++
			if i < len(format) && format[i] == '[' {
				if i, ok = index(i); !ok {
					return nil, false
				}
				afterIndex = true
			}
			p := digits(i)
			spec.WriteString(format[i:p])
			i = p
		}
		if !afterIndex && i < len(format) && format[i] == '[' {
			if i, ok = index(i); !ok {
				return nil, false
			}
		}
		if i >= len(format) || format[i] == '*' || format[i] == '[' {
			return nil, false
		}
		c, size := utf8.DecodeRuneInString(format[i:])
		if c == '%' {
			i += size - 1
			continue
		}
		verbs = append(verbs, indexedVerb{verb: verb{c, 0, sharp, plus}, start: start, end: i + size, spec: spec.String(), arg: argNum})
		argNum++
		i += size - 1
	}
	return verbs, indexed
}

// printIndexed lowers n, a call of a format function whose format (a
// constant) has explicit indexes.
func (r *rewriter) printIndexed(n *ast.CallExpr, pf struct{ format, first int }, format string) {
	verbs, ok := parseIndexed(format)
	args := n.Args[pf.first:]
	if !ok || len(args) == 0 {
		return
	}
	// by operand: the verbs other than %T, which must agree, and %T's.
	others := make([][]indexedVerb, len(args))
	typed := make([][]int, len(args))
	for i, v := range verbs {
		if v.arg >= len(args) {
			return // fmt's %!v(BADINDEX)
		}
		if v.verb.verb == 'T' {
			typed[v.arg] = append(typed[v.arg], i)
			continue
		}
		if o := others[v.arg]; len(o) > 0 && (o[0].verb.verb != v.verb.verb || o[0].sharp != v.sharp) {
			return
		}
		others[v.arg] = append(others[v.arg], v)
	}
	for k, a := range args {
		if len(typed[k]) > 0 && len(others[k]) > 0 {
			if t := r.typeOf(a); t == nil || types.IsInterface(t) && !pure(a) || r.callsRecover(a) {
				return // its %T would evaluate it a second time
			}
		}
	}
	var b strings.Builder
	var extra []string
	at := make([]int, len(verbs)) // where each verb's letter is in b
	last := 0
	for i, v := range verbs {
		b.WriteString(format[last:v.start])
		last = v.end
		idx := v.arg + 1
		if v.verb.verb == 'T' && len(others[v.arg]) > 0 {
			text, ok := r.typeNameOperand(args[v.arg])
			if !ok {
				text = r.nodeText(args[v.arg])
			}
			extra = append(extra, text)
			idx = len(args) + len(extra)
			if ok {
				b.WriteString("%" + v.spec + "[" + strconv.Itoa(idx) + "]")
				at[i] = b.Len()
				b.WriteString("s")
				continue
			}
		}
		b.WriteString("%" + v.spec + "[" + strconv.Itoa(idx) + "]")
		at[i] = b.Len()
		b.WriteRune(v.verb.verb)
	}
	b.WriteString(format[last:])
	newFormat := []byte(b.String())
	for k, a := range args {
		switch {
		case len(others[k]) > 0:
			r.fmtOperand(a, others[k][0].verb, []byte{byte(others[k][0].verb.verb)})
		case len(typed[k]) > 0:
			scratch := []byte{'T'}
			if r.fmtOperand(a, verb{'T', 0, false, false}, scratch) && scratch[0] == 's' {
				for _, i := range typed[k] {
					newFormat[at[i]] = 's'
				}
			}
		}
	}
	if len(extra) > 0 {
		r.insert(r.off(n.Args[len(n.Args)-1].End()), ", "+strings.Join(extra, ", "))
	}
	r.replaceNode(n.Args[pf.format], strconv.Quote(string(newFormat)))
}

// typeNameOperand is an operand printing, with %s, the type %T of a
// prints: its name for a concrete type, the code that names what it
// holds for an interface (dynamicTypeText).
func (r *rewriter) typeNameOperand(a ast.Expr) (string, bool) {
	t := r.typeOf(a)
	if t == nil {
		return "", false
	}
	if types.IsInterface(t) {
		return r.dynamicTypeText(a)
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Default(t)
	}
	return strconv.Quote(types.TypeString(substType(t, r.subst), func(p *types.Package) string { return p.Name() })), true
}
