package fmtmirror

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// A slice, map or pointer of the session's types stored in an interface
// (`var a any = []Color{Red}`, an argument of a `func show(x any)`) is, to
// yaegi and to native code, a plain value of its underlying type ([]int):
// nothing that runs later can tell its type. So the front end tags it where
// it is converted (Tag, given the session's Rebuilder of its static type),
// and Dynamic looks the value up by its identity (a slice's backing array,
// a map, what a pointer points to) and native type when it meets one. The
// value itself is unchanged: compiled code (sort.Slice, json.Marshal,
// reflect) sees what it saw before. The table holds its values and the
// session's rebuilders only weakly, so it keeps nothing alive: an entry
// whose value was collected (its memory maybe reused by another) or whose
// session ended is dead, and found by no lookup. It is bounded: past
// maxTags the oldest entry is dropped (that value prints without its
// elements' methods again).

// maxTags bounds the table (of all sessions of the process).
const maxTags = 4096

// Rebuilder holds the session's functions that rebuild a value of one of
// its types (func(T) any; native type func(U) any, U the value's native
// type) for fmt (plain), for the REPL's display (show) and for %#v
// (syntax), and the type's name as %T prints it. The session holds it in
// a variable; the table only weakly.
type Rebuilder struct {
	plain, show, syntax, numeric reflect.Value
	in                           reflect.Type
	name                         string
	top                          bool // a pointer: rebuilt at the top of an operand only
}

// NewRebuilder makes the Rebuilder of plain, show, syntax and numeric
// (for a verb that calls only Format, %d; nil: plain, nil: none, nil:
// none), each a func of one argument returning any, for the type named
// name; top says it is only for a value at the top of an operand (a
// pointer: below it, fmt prints the address).
func NewRebuilder(plain, show, syntax, numeric any, name string, top bool) *Rebuilder {
	p := reflect.ValueOf(plain)
	if p.Kind() != reflect.Func || p.Type().NumIn() != 1 || p.Type().NumOut() != 1 {
		return nil
	}
	b := &Rebuilder{plain: p, show: p, in: p.Type().In(0), name: name, top: top}
	if s := reflect.ValueOf(show); s.IsValid() && s.Type() == p.Type() {
		b.show = s
	}
	if s := reflect.ValueOf(syntax); s.IsValid() && s.Type() == p.Type() {
		b.syntax = s
	}
	if s := reflect.ValueOf(numeric); s.IsValid() && s.Type() == p.Type() {
		b.numeric = s
	}
	return b
}

type tagKey struct {
	addr uintptr
	typ  reflect.Type
}

type tagEntry struct {
	key  tagKey
	ref  weak.Pointer[byte]
	by   weak.Pointer[Rebuilder]
	used bool
}

// tagTable is the process's table: a ring of entries, the oldest
// overwritten, and an index by key.
type tagTable struct {
	mu    sync.Mutex
	ring  []tagEntry
	next  int
	index map[tagKey]int
	n     atomic.Int32 // entries ever added, capped: lookups skip an empty table
}

var tags = &tagTable{index: map[tagKey]int{}}

// Tag records that v, a slice, map or pointer, is of the type b rebuilds,
// and returns 0 (a value the front end's tag function discards).
func Tag(v any, b *Rebuilder) int {
	if b == nil || v == nil {
		return 0
	}
	rv := reflect.ValueOf(v)
	if rv.Type() != b.in {
		return 0 // not the value the rebuilder takes: a front-end bug
	}
	p, ok := identity(rv)
	if !ok {
		return 0
	}
	k := tagKey{uintptr(p), rv.Type()}
	if tags.has(k, p, b) {
		return 0 // tagged before (a loop storing one slice): no weak.Make
	}
	tags.add(k, weak.Make((*byte)(p)), weak.Make(b))
	return 0
}

// identity is the address that tells v apart (nil when it has none: an
// empty slice, a nil map or pointer, a zero-size element).
func identity(rv reflect.Value) (unsafe.Pointer, bool) {
	switch rv.Kind() {
	case reflect.Slice:
		if rv.Cap() == 0 || rv.Type().Elem().Size() == 0 {
			return nil, false
		}
	case reflect.Map, reflect.Pointer:
		if rv.IsNil() || rv.Kind() == reflect.Pointer && rv.Type().Elem().Size() == 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	p := rv.UnsafePointer()
	return p, p != nil
}

// has reports whether k is in the table, alive, with rebuilder b.
func (t *tagTable) has(k tagKey, p unsafe.Pointer, b *Rebuilder) bool {
	e, ok := t.entry(k)
	return ok && unsafe.Pointer(e.ref.Value()) == p && e.by.Value() == b
}

// entry returns a copy of k's entry, read under the lock.
func (t *tagTable) entry(k tagKey) (tagEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.index[k]
	if !ok {
		return tagEntry{}, false
	}
	return t.ring[i], true
}

func (t *tagTable) add(k tagKey, ref weak.Pointer[byte], by weak.Pointer[Rebuilder]) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i, ok := t.index[k]; ok {
		t.ring[i].ref, t.ring[i].by = ref, by
		return
	}
	var i int
	if len(t.ring) < maxTags {
		i = len(t.ring)
		t.ring = append(t.ring, tagEntry{})
	} else {
		i = t.next
		t.next = (t.next + 1) % maxTags
		if old := t.ring[i]; old.used {
			delete(t.index, old.key)
		}
	}
	t.ring[i] = tagEntry{key: k, ref: ref, by: by, used: true}
	t.index[k] = i
	if t.n.Load() == 0 {
		t.n.Store(1)
	}
}

// lookup returns the rebuilder of rv's tagged type, if rv is a value
// tagged and still alive, as is its session.
func (t *tagTable) lookup(rv reflect.Value) (*Rebuilder, bool) {
	if t.n.Load() == 0 {
		return nil, false
	}
	p, ok := identity(rv)
	if !ok {
		return nil, false
	}
	return t.lookupAt(p, rv.Type())
}

// lookupAt is lookup of the value of type typ whose identity is p.
func (t *tagTable) lookupAt(p unsafe.Pointer, typ reflect.Type) (*Rebuilder, bool) {
	e, ok := t.entry(tagKey{uintptr(p), typ})
	if !ok {
		return nil, false
	}
	// The weak pointer is nil once the tagged value was collected: then
	// rv is another value at its address.
	if got := e.ref.Value(); got == nil || unsafe.Pointer(got) != p {
		return nil, false
	}
	b := e.by.Value()
	if b == nil || b.in != typ {
		return nil, false
	}
	return b, true
}

// rebuilt returns what the rebuilder of a tagged v makes of it, at depth
// in the operand; ok is false when v is not tagged (or is a pointer below
// the top of an fmt operand, printed as its address).
func rebuilt(rv reflect.Value, depth int, show, syntax bool) (any, bool) {
	b, ok := tags.lookup(rv)
	return rebuiltBy(b, ok, rv, depth, show, syntax, false)
}

// rebuiltAny is rebuilt of v, also when v is an array in a box of its own
// (tagbox.go).
func rebuiltAny(v any, rv reflect.Value, depth int, show, syntax, numeric bool) (any, bool) {
	b, ok := tags.lookup(rv)
	if !ok {
		b, ok = tags.lookupBox(v)
	}
	return rebuiltBy(b, ok, rv, depth, show, syntax, numeric)
}

// rebuiltBy is what b, when ok, makes of rv.
func rebuiltBy(b *Rebuilder, ok bool, rv reflect.Value, depth int, show, syntax, numeric bool) (any, bool) {
	if !ok || b.top && depth > 0 && !show {
		return nil, false
	}
	fn := b.plain
	switch {
	case syntax:
		fn = b.syntax
	case numeric:
		fn = b.numeric
	case show:
		fn = b.show
	}
	if !fn.IsValid() {
		return nil, false
	}
	out := fn.Call([]reflect.Value{rv})
	if len(out) != 1 || !out[0].IsValid() {
		return nil, false
	}
	return out[0].Interface(), true
}

// TaggedTypeName is %T of v when v is a tagged value (a slice, map or
// pointer of the session's types, which native code sees as one of their
// underlying types).
func TaggedTypeName(v any) (string, bool) {
	if v == nil {
		return "", false
	}
	b, ok := tags.lookup(reflect.ValueOf(v))
	if !ok {
		b, ok = tags.lookupBox(v)
	}
	if !ok {
		return recordedName(v) // a method-less non-struct value (tagname.go)
	}
	return b.name, true
}

// makeFuncCode is the code of every reflect.MakeFunc func.
var makeFuncCode = reflect.MakeFunc(reflect.TypeFor[func()](), func([]reflect.Value) []reflect.Value { return nil }).UnsafePointer()

// wrapperIdentity is the closure object of the first method field of
// yaegi's interface wrapper v.
func wrapperIdentity(v any) (unsafe.Pointer, bool) {
	if v == nil {
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if _, ok := ifaceWrapped(rv); !ok {
		return nil, false
	}
	fv := rv.Field(1)
	if fv.Kind() != reflect.Func || fv.IsNil() || fv.UnsafePointer() != makeFuncCode {
		// Not a reflect.MakeFunc closure (yaegi makes one for each
		// interpreted method): another func may not be on the heap,
		// where weak.Make needs it.
		return nil, false
	}
	c := reflect.New(fv.Type()).Elem()
	c.Set(fv)
	p := *(*unsafe.Pointer)(c.Addr().UnsafePointer()) // the func value: a pointer to its closure
	return p, p != nil
}
