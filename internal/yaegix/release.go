package yaegix

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Release lets a compiled cell's tree go once the cell has run. yaegi
// v0.16.1 keeps every variable a cell declares pointing at its
// declaration (symbol.node) and its type at the type's expression
// (itype.node); a node points at its parent and its children, so each
// declaring cell's whole tree (~2.3 KB) stays live for the session's life.
//
// What yaegi reads those pointers for, and so what is cut:
//   - a variable's symbol.node (index >= 0: a slot in the frame) only for
//     the initialisation order of a file's global vars
//     (getVarDependencies), where a node of an earlier cell is never among
//     the file's own, exactly as nil is not: set to nil. Functions,
//     constants and types keep theirs (a call, a constant's value, a
//     method's receiver, generics read them).
//   - an unnamed, complete, typed type's itype.node only for error texts
//     (cfgErrorf: its interp and pos), a redeclaration's "previous
//     declaration" (node.anc), a nil check (run.go: a value type without
//     a node), a constant's value (node.rval, which assignability reads:
//     such nodes and untyped types are kept), and the option passing it on
//     to a derived type. It becomes stub, one
//     node of its own with the interpreter and no position: never nil
//     where it was not. Functions' types (a call reads the func's tree
//     there), generic, interface, named and incomplete types (parsed
//     again from their node) keep theirs.
//
// A cell's tree is found through yaegi's list of compiled roots (the one
// Control.ForgetRoots empties), and the variables through the names its
// nodes carry, so that a release costs the cell's size, not the
// session's.
type Release struct {
	yi     *interp.Interpreter
	roots  *[]unsafe.Pointer // interp.roots
	scopes reflect.Value     // interp.scopes: map[string]*scope
	stub   unsafe.Pointer    // the node cut types point at

	scopeSym   uintptr      // scope.sym: map[string]*symbol
	symMapType reflect.Type // its type (for the tests' reflect reads)

	nodeChild, nodeIdent, nodeRval uintptr // node.child []*node, node.ident string, node.rval reflect.Value

	symKind, symTyp, symNode, symIndex uintptr // symbol's fields

	typCat, typName, typNode, typVal, typKey, typPtr, typField uintptr // itype's
	typIncomplete, typUntyped                                  uintptr
	fieldSize, fieldTyp                                        uintptr // structField, its typ

	seen  map[unsafe.Pointer]bool // Cut's, kept between cells (emptied)
	stack []unsafe.Pointer

	varSym uint          // sKind of a variable
	cut    map[uint]bool // tcats whose unnamed types lose their node
	follow map[uint]bool // tcats whose element types are looked at too
}

// cutCats are the categories of unnamed types whose node goes: composite
// type literals and the basic types of typed values. followCats are those
// whose element, key and field types are looked at in turn.
var (
	cutCats = []string{"arrayT", "chanT", "mapT", "ptrT", "sliceT", "structT", "valueT",
		"boolT", "intT", "int8T", "int16T", "int32T", "int64T", "uintT", "uint8T", "uint16T", "uint32T", "uint64T", "uintptrT",
		"float32", "float64T", "complex64T", "complex128T", "stringT"}
	followCats = []string{"arrayT", "chanT", "mapT", "ptrT", "sliceT", "structT"}
)

// NewRelease finds the fields of yi that Cut follows (checked as
// NewControl checks its own).
func NewRelease(yi *interp.Interpreter) (*Release, error) {
	v := reflect.ValueOf(yi).Elem()
	roots := v.FieldByName("roots")
	scopes := v.FieldByName("scopes")
	if !roots.IsValid() || roots.Kind() != reflect.Slice || roots.Type().Elem().Kind() != reflect.Pointer || roots.Type().Elem().Elem().Name() != "node" {
		return nil, fmt.Errorf("%w: field roots", ErrLayout)
	}
	if !scopes.IsValid() || scopes.Kind() != reflect.Map || scopes.Type().Key().Kind() != reflect.String || scopes.Type().Elem().Kind() != reflect.Pointer || scopes.Type().Elem().Elem().Name() != "scope" {
		return nil, fmt.Errorf("%w: field scopes", ErrLayout)
	}
	nodeT := roots.Type().Elem().Elem()
	scopeT := scopes.Type().Elem().Elem()
	r := &Release{
		yi:     yi,
		roots:  (*[]unsafe.Pointer)(unsafe.Pointer(roots.UnsafeAddr())),
		scopes: reflect.NewAt(scopes.Type(), unsafe.Pointer(scopes.UnsafeAddr())).Elem(),
		stub:   unsafe.Pointer(reflect.New(nodeT).Pointer()),
	}
	l := layout{}
	symMap := l.field(scopeT, "sym", reflect.Map)
	var symT, typT, fieldT reflect.Type
	if symMap.Type != nil && symMap.Type.Key().Kind() != reflect.String {
		return nil, fmt.Errorf("%w: scope.sym's key", ErrLayout)
	}
	if symMap.Type != nil {
		r.scopeSym, r.symMapType = symMap.Offset, symMap.Type
		symT = l.pointee(symMap.Type.Elem(), "symbol")
	}
	r.nodeChild = l.offset(nodeT, "child", reflect.Slice)
	r.nodeIdent = l.offset(nodeT, "ident", reflect.String)
	rval := l.field(nodeT, "rval", reflect.Struct)
	if rval.Type != nil && rval.Type != reflect.TypeOf(reflect.Value{}) {
		return nil, fmt.Errorf("%w: field node.rval", ErrLayout)
	}
	r.nodeRval = rval.Offset
	interpField := l.field(nodeT, "interp", reflect.Pointer)
	if symT != nil {
		r.symKind = l.offset(symT, "kind", reflect.Uint)
		r.symIndex = l.offset(symT, "index", reflect.Int)
		r.symNode = l.offset(symT, "node", reflect.Pointer)
		if f := l.field(symT, "typ", reflect.Pointer); f.Type != nil {
			r.symTyp, typT = f.Offset, l.pointee(f.Type, "itype")
		}
	}
	if typT != nil {
		r.typCat = l.offset(typT, "cat", reflect.Uint)
		r.typName = l.offset(typT, "name", reflect.String)
		r.typNode = l.offset(typT, "node", reflect.Pointer)
		r.typVal = l.offset(typT, "val", reflect.Pointer)
		r.typKey = l.offset(typT, "key", reflect.Pointer)
		r.typPtr = l.offset(typT, "ptr", reflect.Pointer)
		r.typIncomplete = l.offset(typT, "incomplete", reflect.Bool)
		r.typUntyped = l.offset(typT, "untyped", reflect.Bool)
		if f := l.field(typT, "field", reflect.Slice); f.Type != nil {
			r.typField, fieldT = f.Offset, f.Type.Elem()
			r.fieldSize = fieldT.Size()
			r.fieldTyp = l.offset(fieldT, "typ", reflect.Pointer)
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	if interpField.Type != reflect.TypeOf(yi) {
		return nil, fmt.Errorf("%w: field node.interp", ErrLayout)
	}
	*(**interp.Interpreter)(unsafe.Add(r.stub, interpField.Offset)) = yi
	var err error
	kinds := names(l.fieldType(symT, "kind"))
	cats := names(l.fieldType(typT, "cat"))
	if r.varSym, err = lookupName(kinds, "varSym"); err != nil {
		return nil, err
	}
	if r.cut, err = catSet(cats, cutCats); err != nil {
		return nil, err
	}
	if r.follow, err = catSet(cats, followCats); err != nil {
		return nil, err
	}
	return r, nil
}

// Cut releases what the cells compiled since the last ForgetRoots
// declared. Call it after a cell, while no compile runs, before
// Control.ForgetRoots.
func (r *Release) Cut() {
	mainScope := r.scopes.MapIndex(reflect.ValueOf("main"))
	if !mainScope.IsValid() || mainScope.IsNil() {
		return
	}
	// scope.sym is a map[string]*symbol, read as a map[string]unsafe.Pointer:
	// the same layout (a string key, a pointer value), and a lookup that
	// boxes nothing (reflect's MapIndex allocated twice per name).
	syms := *(*map[string]unsafe.Pointer)(unsafe.Add(mainScope.UnsafePointer(), r.scopeSym))
	// The child lists are not a tree in every case (a compiled tree can
	// list a node under two parents, or an ancestor): each node is looked
	// at once.
	if r.seen == nil {
		r.seen = map[unsafe.Pointer]bool{}
	}
	seen := r.seen
	stack := append(r.stack[:0], *r.roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, *(*[]unsafe.Pointer)(unsafe.Add(n, r.nodeChild))...)
		if ident := *(*string)(unsafe.Add(n, r.nodeIdent)); ident != "" {
			if s := syms[ident]; s != nil {
				r.cutSymbol(s)
			}
		}
	}
	// Kept for the next cell, unless a large one grew them (a cleared map
	// keeps its size).
	grown := len(seen) > maxKept || cap(stack) > maxKept
	clear(seen)
	if grown {
		r.seen, r.stack = nil, nil
	} else {
		clear(stack[:cap(stack)]) // no node stays reachable from it
		r.stack = stack[:0]
	}
}

// maxKept bounds the walk's set and stack kept between cells.
const maxKept = 4096

// cutSymbol cuts a variable's node and its type's.
func (r *Release) cutSymbol(s unsafe.Pointer) {
	if *(*uint)(unsafe.Add(s, r.symKind)) != r.varSym || *(*int)(unsafe.Add(s, r.symIndex)) < 0 {
		return
	}
	*(*unsafe.Pointer)(unsafe.Add(s, r.symNode)) = nil
	r.cutType(*(*unsafe.Pointer)(unsafe.Add(s, r.symTyp)), 0)
}

// maxDepth bounds cutType's descent: a type reached again through its
// cached pointer type is met with its node already the stub, but one
// without a node is not marked.
const maxDepth = 8

// cutType points an unnamed, complete, typed type's node at the stub and
// looks at its element types.
func (r *Release) cutType(t unsafe.Pointer, depth int) {
	if t == nil || depth > maxDepth || *(*string)(unsafe.Add(t, r.typName)) != "" ||
		*(*bool)(unsafe.Add(t, r.typIncomplete)) || *(*bool)(unsafe.Add(t, r.typUntyped)) {
		return
	}
	cat := *(*uint)(unsafe.Add(t, r.typCat))
	if !r.cut[cat] {
		return
	}
	node := (*unsafe.Pointer)(unsafe.Add(t, r.typNode))
	if *node == r.stub {
		return
	}
	if *node != nil {
		if (*reflect.Value)(unsafe.Add(*node, r.nodeRval)).IsValid() {
			return // a constant's value, which assignability reads
		}
		*node = r.stub
	}
	if !r.follow[cat] {
		return
	}
	for _, off := range []uintptr{r.typVal, r.typKey, r.typPtr} {
		r.cutType(*(*unsafe.Pointer)(unsafe.Add(t, off)), depth+1)
	}
	// field is a []structField: its data and length, elements fieldSize apart.
	hdr := (*struct {
		data unsafe.Pointer
		len  int
	})(unsafe.Add(t, r.typField))
	for i := range hdr.len {
		r.cutType(*(*unsafe.Pointer)(unsafe.Add(hdr.data, uintptr(i)*r.fieldSize+r.fieldTyp)), depth+1)
	}
}

// layout collects the first missing field while finding several.
type layout struct{ err error }

func (l *layout) field(t reflect.Type, name string, kind reflect.Kind) reflect.StructField {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.StructField{}
	}
	f, ok := t.FieldByName(name)
	if !ok || f.Type.Kind() != kind || len(f.Index) != 1 {
		if l.err == nil {
			l.err = fmt.Errorf("%w: field %s.%s", ErrLayout, t.Name(), name)
		}
		return reflect.StructField{}
	}
	return f
}

func (l *layout) offset(t reflect.Type, name string, kind reflect.Kind) uintptr {
	return l.field(t, name, kind).Offset
}

func (l *layout) fieldType(t reflect.Type, name string) reflect.Type {
	if t == nil {
		return nil
	}
	f, ok := t.FieldByName(name)
	if !ok {
		return nil
	}
	return f.Type
}

// pointee is the struct a pointer type t points at, named name.
func (l *layout) pointee(t reflect.Type, name string) reflect.Type {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().Name() != name {
		if l.err == nil {
			l.err = fmt.Errorf("%w: type %s", ErrLayout, name)
		}
		return nil
	}
	return t.Elem()
}

// names maps the String of each value of an enumeration of yaegi's (an
// unsigned type with a String method) to the value, for the first 256.
func names(t reflect.Type) map[string]uint {
	m := map[string]uint{}
	if t == nil || t.Kind() != reflect.Uint {
		return m
	}
	for i := range uint64(256) {
		v := reflect.New(t).Elem()
		v.SetUint(i)
		if s, ok := v.Interface().(fmt.Stringer); ok {
			m[s.String()] = uint(i)
		}
	}
	return m
}

func lookupName(m map[string]uint, name string) (uint, error) {
	v, ok := m[name]
	if !ok {
		return 0, fmt.Errorf("%w: no %s", ErrLayout, name)
	}
	return v, nil
}

func catSet(m map[string]uint, list []string) (map[uint]bool, error) {
	set := map[uint]bool{}
	for _, name := range list {
		v, err := lookupName(m, name)
		if err != nil {
			return nil, err
		}
		set[v] = true
	}
	return set, nil
}
