// Package pretty renders Go values the way the REPL shows them: Go-like
// literals with field names (%+v style), String and Error methods honoured,
// printable []byte as a quoted string, functions by their type, pointers as
// &{...} instead of addresses, and values too long for one line spread over
// several, indented. It works on reflect alone: the interpreter hands the
// host plain values, so no go/types information is available here.
//
// Written here rather than taken from a library: kr/pretty and
// davecgh/go-spew print types and addresses (`main.P{X:1}`, `(*main.P)(0xc0…)`)
// and ignore the width rule; the REPL's users expect fmt's %+v look.
package pretty

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// Width is the line length past which a composite value is spread over
// several lines.
const Width = 80

// maxDepth bounds recursion: a cyclic structure through pointers, maps or
// slices ends in "..." instead of running away.
const maxDepth = 12

// maxElems bounds how many elements of a slice, array or map are shown.
const maxElems = 1000

// Sprint renders v, over several lines when it does not fit in Width.
func Sprint(v any) string {
	if v == nil {
		return "<nil>"
	}
	p := printer{seen: map[uintptr]bool{}}
	n := p.node(reflect.ValueOf(v), 0, true)
	return n.render(0)
}

// node is a rendered value: a leaf text, or a composite with an opening,
// its elements and a closing, laid out flat or one element a line.
type node struct {
	text       string // leaf, or the opening ("{", "[", "map[")
	elems      []node
	close      string
	composite  bool
	flatLength int
}

func leaf(s string) node { return node{text: s, flatLength: len(s)} }

func (n node) flat() string {
	if !n.composite {
		return n.text
	}
	parts := make([]string, len(n.elems))
	for i, e := range n.elems {
		parts[i] = e.flat()
	}
	return n.text + strings.Join(parts, " ") + n.close
}

// render lays n out at indentation depth: flat when it fits in Width.
func (n node) render(indent int) string {
	if !n.composite || indent*2+n.flatLength <= Width || len(n.elems) == 0 {
		return n.flat()
	}
	var b strings.Builder
	b.WriteString(n.text)
	b.WriteByte('\n')
	pad := strings.Repeat("  ", indent+1)
	for _, e := range n.elems {
		b.WriteString(pad)
		b.WriteString(e.render(indent + 1))
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("  ", indent))
	b.WriteString(n.close)
	return b.String()
}

func composite(open string, elems []node, close string) node {
	l := len(open) + len(close)
	for i, e := range elems {
		l += e.flatLength
		if i > 0 {
			l++
		}
	}
	return node{text: open, elems: elems, close: close, composite: true, flatLength: l}
}

// prefixed puts a prefix before a node ("Name:" or "&").
func prefixed(prefix string, n node) node {
	n.text = prefix + n.text
	n.flatLength += len(prefix)
	return n
}

type printer struct {
	seen map[uintptr]bool // pointers being printed: cycles
}

var (
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
)

// node renders v; top says v is the value itself, where a string is quoted
// and a []byte shown as text.
func (p *printer) node(v reflect.Value, depth int, top bool) node {
	if !v.IsValid() {
		return leaf("<nil>")
	}
	if depth > maxDepth {
		return leaf("...")
	}
	if n, ok := p.mirrored(v, depth); ok {
		return n
	}
	if s, ok := method(v); ok {
		return leaf(s)
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return leaf("<nil>")
		}
		return p.node(v.Elem(), depth, top)
	case reflect.String:
		if top {
			return leaf(strconv.Quote(v.String()))
		}
		return leaf(v.String())
	case reflect.Func:
		if v.IsNil() {
			return leaf(v.Type().String() + "(nil)")
		}
		return leaf(v.Type().String())
	case reflect.Chan, reflect.UnsafePointer:
		if !v.CanInterface() { // inside a value of yaegi's own, read by reflect
			return leaf(fmt.Sprintf("%#x", v.Pointer()))
		}
		return leaf(fmt.Sprint(v.Interface()))
	case reflect.Pointer:
		if v.IsNil() {
			return leaf("<nil>")
		}
		switch v.Elem().Kind() {
		case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
			if depth > 0 && p.seen[v.Pointer()] {
				return leaf(fmt.Sprintf("%#x", v.Pointer()))
			}
			p.seen[v.Pointer()] = true
			defer delete(p.seen, v.Pointer())
			return prefixed("&", p.node(v.Elem(), depth+1, false))
		}
		if depth == 0 {
			return prefixed("&", p.node(v.Elem(), depth+1, false))
		}
		return leaf(fmt.Sprintf("%#x", v.Pointer()))
	case reflect.Struct:
		t := v.Type()
		elems := make([]node, 0, v.NumField())
		for i := range v.NumField() {
			f := t.Field(i)
			name := f.Name + ":"
			if f.Anonymous {
				name = f.Type.Name() + ":"
				if name == ":" {
					name = f.Name + ":"
				}
			}
			elems = append(elems, prefixed(name, p.node(v.Field(i), depth+1, false)))
		}
		return composite("{", elems, "}")
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return leaf("[]")
		}
		if v.Type().Elem().Kind() == reflect.Uint8 && top {
			if s, ok := printableBytes(v); ok {
				return leaf(strconv.Quote(s))
			}
		}
		elems := make([]node, 0, min(v.Len(), maxElems+1))
		for i := range v.Len() {
			if i == maxElems {
				elems = append(elems, leaf(fmt.Sprintf("...(%d more)", v.Len()-i)))
				break
			}
			elems = append(elems, p.node(v.Index(i), depth+1, false))
		}
		return composite("[", elems, "]")
	case reflect.Map:
		if v.IsNil() {
			return leaf("map[]")
		}
		keys := v.MapKeys()
		sortKeys(keys)
		elems := make([]node, 0, min(len(keys), maxElems+1))
		for i, k := range keys {
			if i == maxElems {
				elems = append(elems, leaf(fmt.Sprintf("...(%d more)", len(keys)-i)))
				break
			}
			key := p.node(k, depth+1, false).flat()
			elems = append(elems, prefixed(key+":", p.node(v.MapIndex(k), depth+1, false)))
		}
		return composite("map[", elems, "]")
	}
	if v.CanInterface() {
		return leaf(fmt.Sprint(v.Interface()))
	}
	return leaf(fmt.Sprint(v))
}

// method returns what v's Error or String method says, as fmt would use it
// (a nil pointer receiver that panics is shown as fmt shows it).
func method(v reflect.Value) (string, bool) {
	if !v.CanInterface() {
		return "", false
	}
	if v.Kind() == reflect.Interface {
		return "", false
	}
	t := v.Type()
	if !t.Implements(errorType) && !t.Implements(stringerType) {
		return "", false
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return "<nil>", true
	}
	return fmt.Sprint(v.Interface()), true
}

// printableBytes is b as text when it is valid UTF-8 of printable runes
// and white space.
func printableBytes(v reflect.Value) (string, bool) {
	b := make([]byte, v.Len())
	reflect.Copy(reflect.ValueOf(b), v)
	if len(b) == 0 || !utf8.Valid(b) {
		return "", false
	}
	for _, r := range string(b) {
		if r != '\n' && r != '\t' && r != '\r' && !strconv.IsPrint(r) {
			return "", false
		}
	}
	return string(b), true
}

// mirrored renders the stand-ins the front end builds for values of
// interpreted types (internal/fmtmirror) as the values they stand for.
func (p *printer) mirrored(v reflect.Value, depth int) (node, bool) {
	if !v.CanInterface() {
		return node{}, false
	}
	if inner, ok := fmtmirror.Unwrap(v.Interface()); ok {
		return p.node(reflect.ValueOf(inner), depth, false), true
	}
	switch m := v.Interface().(type) {
	case fmtmirror.Formatter:
		return leaf(fmt.Sprint(m)), true // the value's own Format method
	case fmtmirror.Struct:
		elems := make([]node, len(m.Vals))
		for i, x := range m.Vals {
			elems[i] = prefixed(m.Names[i]+":", p.node(reflect.ValueOf(x), depth+1, false))
		}
		return composite("{", elems, "}"), true
	case fmtmirror.Ptr:
		return prefixed("&", p.node(reflect.ValueOf(m.Elem), depth+1, false)), true
	case fmtmirror.Map:
		elems := make([]node, 0, min(len(m.Keys), maxElems+1))
		for i := range m.Keys {
			if i == maxElems {
				elems = append(elems, leaf(fmt.Sprintf("...(%d more)", len(m.Keys)-i)))
				break
			}
			key := p.node(reflect.ValueOf(m.Keys[i]), depth+1, false).flat()
			elems = append(elems, prefixed(key+":", p.node(reflect.ValueOf(m.Vals[i]), depth+1, false)))
		}
		return composite("map[", elems, "]"), true
	}
	return node{}, false
}
