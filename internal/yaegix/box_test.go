package yaegix

import (
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestUnboxOpensYaegisBox pins interp.valueInterface: interpreted code hands
// a native func(any) a value of a type with methods in yaegi's box, whose
// node names the type; two boxes of equal values compare unequal; a value
// of a type without methods, or of a declared interface's variable, comes
// bare.
func TestUnboxOpensYaegisBox(t *testing.T) {
	var got []any
	yi := newInterp(t, nil, nil)
	if err := yi.Use(interp.Exports{"probe/probe": {"Keep": reflect.ValueOf(func(v any) { got = append(got, v) })}}); err != nil {
		t.Fatal(err)
	}
	_, err := evalAll(yi, `import "probe"`, `
type U uint16
func (U) M() {}
type V uint16
func (V) M() {}
type I interface{ M() }
var a, b any = U(1), U(1)
var c any = V(1)
var i I = U(1)
func run() { probe.Keep(a); probe.Keep(b); probe.Keep(c); probe.Keep(uint16(1)); probe.Keep(i) }`, `run()`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("got %d values; want 5", len(got))
	}
	if got[0] == got[1] {
		t.Errorf("two boxes of U(1) compare equal: yaegi no longer boxes as this package says")
	}
	ta, va := Unbox(got[0])
	tb, vb := Unbox(got[1])
	tc, _ := Unbox(got[2])
	tp, vp := Unbox(got[3])
	_, vi := Unbox(got[4])
	if !ta.Known || !tb.Known || ta.ID != tb.ID {
		t.Errorf("U(1) twice: types %+v and %+v; want one known type", ta, tb)
	}
	if !tc.Known || tc.ID == ta.ID {
		t.Errorf("V(1): type %+v; want a known type other than U's %+v", tc, ta)
	}
	if tp.Known {
		t.Errorf("uint16(1): type %+v; want none (not boxed)", tp)
	}
	for n, v := range []reflect.Value{va, vb, vp, vi} {
		if !v.IsValid() || v.Interface() != any(uint16(1)) {
			t.Errorf("value %d: got %v; want uint16(1)", n, v)
		}
	}
}
