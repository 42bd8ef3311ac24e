package fmtmirror

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// A value of a non-struct type of the session's converted to a compiled
// interface (`var s fmt.Stringer = Color(1)`) is, to native code, yaegi's
// wrapper holding the underlying value (an int): when two of the session's
// types of that underlying type have the interface's methods (Color and
// Weekday), %T cannot tell which. The front end names it where it is
// converted (TagIface); each conversion makes a wrapper whose method
// fields are closures of their own, which copies of the wrapper share: the
// first one's closure is the wrapper's identity. The same table names an
// interface value's box (TagName) and what a pointer points to
// (TagPointerName), each held weakly and bounded as the tags.

// names is the table of names: identity -> the type's name.
var names = struct {
	sync.Mutex
	ring  []namedEntry
	next  int
	index map[nameKey]int
}{index: map[nameKey]int{}}

// namesUsed is set by the first name recorded: comparisons skip an empty
// table.
var namesUsed atomic.Bool

// nameKey is an object's address and, for a pointer's target, the
// pointer's native type (&s and &s.X share an address); nil for a
// wrapper's closure or a box, objects of their own.
type nameKey struct {
	addr uintptr
	typ  reflect.Type
}

type namedEntry struct {
	key  nameKey
	ref  weak.Pointer[byte]
	name string
}

// TagIface records that v, yaegi's wrapper of a value converted to a
// compiled interface, holds a value of the type named name; it returns v.
func TagIface(v any, name string) any {
	p, ok := wrapperIdentity(v)
	if !ok {
		return v
	}
	recordName(nameKey{addr: uintptr(p)}, weak.Make((*byte)(p)), name)
	return v
}

// recordName records that the object k names holds a value of the type
// named name.
func recordName(k nameKey, ref weak.Pointer[byte], name string) {
	t := &names
	t.Lock()
	defer t.Unlock()
	e := namedEntry{k, ref, name}
	if i, ok := t.index[k]; ok {
		t.ring[i] = e
		return
	}
	var i int
	if len(t.ring) < maxTags {
		i = len(t.ring)
		t.ring = append(t.ring, e)
	} else {
		i = t.next
		t.next = (t.next + 1) % maxTags
		delete(t.index, t.ring[i].key)
		t.ring[i] = e
	}
	t.index[k] = i
	namesUsed.Store(true)
}

// TaggedIfaceName is the name TagIface recorded for the wrapper v.
func TaggedIfaceName(v any) (string, bool) {
	p, ok := wrapperIdentity(v)
	if !ok {
		return "", false
	}
	return nameAt(nameKey{addr: uintptr(p)})
}

// nameAt is the name recorded for k, while its object is alive.
func nameAt(k nameKey) (string, bool) {
	t := &names
	t.Lock()
	i, ok := t.index[k]
	var e namedEntry
	if ok {
		e = t.ring[i]
	}
	t.Unlock()
	if !ok || uintptr(unsafe.Pointer(e.ref.Value())) != k.addr {
		return "", false
	}
	return e.name, true
}
