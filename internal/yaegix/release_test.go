package yaegix

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	"github.com/traefik/yaegi/interp"
)

// released is an interpreter that lets each cell's tree go after it ran,
// as the sandbox does.
type released struct {
	yi  *interp.Interpreter
	rel *Release
	ctl *Control
}

func newReleased(tb testing.TB) *released {
	tb.Helper()
	yi := newInterp(tb, nil, nil)
	rel, err := NewRelease(yi)
	if err != nil {
		tb.Fatal(err)
	}
	ctl, err := NewControl(yi)
	if err != nil {
		tb.Fatal(err)
	}
	return &released{yi: yi, rel: rel, ctl: ctl}
}

// eval runs src and releases its tree; the text is the value or the error.
func (r *released) eval(src string) string {
	defer r.ctl.ForgetRoots()
	defer r.rel.Cut()
	return evalText(r.yi, src)
}

func evalText(yi *interp.Interpreter, src string) (text string) {
	defer func() {
		if p := recover(); p != nil {
			text = fmt.Sprintf("panic: %v", p)
		}
	}()
	v, err := yi.Eval(src)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case !v.IsValid() || !v.CanInterface():
		return ""
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return v.Kind().String() // its address differs from run to run
	}
	return fmt.Sprint(v.Interface())
}

// TestReleaseLetsTheTreeGo: after a cell declaring a variable of a
// composite type, nothing of the interpreter's holds its tree any more.
func TestReleaseLetsTheTreeGo(t *testing.T) {
	for _, release := range []bool{false, true} {
		t.Run(fmt.Sprintf("release-%v", release), func(t *testing.T) {
			r := newReleased(t)
			r.eval("v0 := []int{0}")
			root := r.cellRoot(t, "v1 := map[string][]int{\"a\": {1}}", release)
			runtime.GC()
			runtime.GC()
			if got := r.eval(`v1["a"][0] + v0[0]`); got != "1" {
				t.Fatalf("got %q; want 1", got)
			}
			if gone := root.Value() == nil; gone != release {
				t.Errorf("tree collected: got %v; want %v", gone, release)
			}
			runtime.KeepAlive(r.yi)
		})
	}
}

// cellRoot runs src and returns a weak pointer to its tree's root, with
// the tree released or only its root list forgotten (as before Release).
func (r *released) cellRoot(tb testing.TB, src string, release bool) weak.Pointer[byte] {
	tb.Helper()
	if got := evalText(r.yi, src); got != "map[a:[1]]" {
		tb.Fatalf("%s: got %q", src, got)
	}
	if len(*r.rel.roots) != 1 {
		tb.Fatalf("roots: got %d; want 1", len(*r.rel.roots))
	}
	root := weak.Make((*byte)((*r.rel.roots)[0]))
	if release {
		r.rel.Cut()
	}
	r.ctl.ForgetRoots()
	return root
}

// TestReleaseKeepsMeaning runs sessions with and without the release and
// wants the same value or error from every cell: variables redeclared,
// methods added in a later cell, generics, closures, types used in later
// composite literals, value types, errors that name a released type.
func TestReleaseKeepsMeaning(t *testing.T) {
	sessions := map[string][]string{
		"redeclare": {
			"v := []int{1}", "v := []int{1, 2}", "len(v)",
			"var w = map[string]int{\"a\": 1}", "var w = 2", "w", "w, x := 3, []string{\"x\"}", "fmt.Sprint(w, x)",
		},
		"later-methods": {
			"type T struct{ X int }", "t := &T{1}", "u := []T{{2}}",
			"func (t *T) Get() int { return t.X }", "t.Get() + u[0].X",
			"func (t T) Twice() int { return 2 * t.X }", "u[0].Twice()",
			"g := interface{ Get() int }(t); g.Get()", "g.Get() + 1",
		},
		"generics": {
			"func Id[E any](x E) E { return x }",
			"xs := []int{1, 2}", "Id(3)", "func useId(s []int) []int { return Id(s) }", "ys := useId(xs)", "fmt.Sprint(ys)",
			"type Box[T any] struct{ V T }", "b := Box[int]{V: 1}", "pb := &b", "pb.V + b.V",
			"func (b Box[T]) Get() T { return b.V }", "b.Get()", "bs := []Box[string]{{V: \"s\"}}", "bs[0].Get()",
		},
		"closures": {
			"n := []int{0}", "inc := func() int { n[0]++; return n[0] }", "inc()", "inc()",
			"fs := []func() int{inc}", "fs[0]()", "n[0]",
		},
		"later-literals": {
			"type P struct{ X, Y int }", "ps := []P{{1, 2}}", "qs := []P{{3, 4}}", "fmt.Sprint(append(ps, qs...))",
			"m := map[string]P{\"a\": {1, 2}}", "m[\"a\"].Y", "arr := [2]P{{5, 6}}", "arr[0].X",
			"pp := &P{7, 8}", "pq := &P{9, 10}", "pp.X + pq.Y",
		},
		"value-types": {
			"tm := time.Unix(0, 0).UTC()", "tm.Year()", "st := fmt.Stringer(tm)", "st.String()", "d := time.Second", "d.String()",
			"ch := make(chan int, 1)", "ch <- 1", "<-ch",
			"s := struct{ A int }{1}", "s.A", "s.B", "v := []int{1}", "v.Foo", "mp := map[int]bool{}", "mp.Len()",
			"n64 := int64(5)", "var n8 int8 = n64", "n8", "k := 3", "var f float64 = k", "f",
		},
		"generic-sources": {
			`import "slices"`, "xs := []int{3, 1, 2}", "slices.Sort(xs)", "fmt.Sprint(xs)", "slices.Index(xs, 2)",
			"ys := slices.Clone(xs)", "slices.Contains(ys, 5)", `import "maps"`, "m := map[string]int{\"a\": 1}", "fmt.Sprint(maps.Clone(m))",
		},
		"global-vars": {
			"var a = []int{1}", "var b = a", "var c, d = len(a), len(b)", "c + d",
			"var e = []int{len(b)}", "e[0]", "a[0] = 5", "b[0]",
		},
	}
	for name, cells := range sessions {
		t.Run(name, func(t *testing.T) {
			plain := newInterp(t, nil, nil)
			r := newReleased(t)
			for _, cell := range append([]string{`import "fmt"`, `import "time"`, "time.Second"}, cells...) {
				want := evalText(plain, cell)
				t.Logf("%s => %s", cell, want)
				if got := r.eval(cell); got != want {
					t.Errorf("%s: got %q; want %q (without the release)", cell, got, want)
				}
				runtime.GC()
			}
		})
	}
}

// TestReleaseLayout pins what Release reads of yaegi: a variable's symbol
// loses its node, its unnamed type's node becomes the stub, a named type
// and a function keep theirs.
func TestReleaseLayout(t *testing.T) {
	r := newReleased(t)
	for _, cell := range []string{"type T struct{ X int }", "func f() int { return 1 }", "v := []T{{1}}", "w := 1"} {
		if got := r.eval(cell); len(got) >= 6 && got[:6] == "error:" {
			t.Fatalf("%s: %s", cell, got)
		}
	}
	syms := r.rel.scopes.MapIndex(reflect.ValueOf("main"))
	m := reflect.NewAt(r.rel.symMapType, unsafe.Add(syms.UnsafePointer(), r.rel.scopeSym)).Elem()
	sym := func(name string) unsafe.Pointer { return m.MapIndex(reflect.ValueOf(name)).UnsafePointer() }
	node := func(s unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Add(s, r.rel.symNode)) }
	typ := func(s unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Add(s, r.rel.symTyp)) }
	typNode := func(t unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Add(t, r.rel.typNode)) }
	v := sym("v")
	if node(v) != nil {
		t.Errorf("v: symbol node kept")
	}
	if typNode(typ(v)) != r.rel.stub {
		t.Errorf("v: type node not the stub")
	}
	elem := *(*unsafe.Pointer)(unsafe.Add(typ(v), r.rel.typVal))
	if n := typNode(elem); n == nil || n == r.rel.stub {
		t.Errorf("T (v's element): type node cut")
	}
	if n := node(sym("f")); n == nil {
		t.Errorf("f: symbol node cut")
	}
	if n := typNode(typ(sym("f"))); n == nil || n == r.rel.stub {
		t.Errorf("f: type node cut")
	}
}
