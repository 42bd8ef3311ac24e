package yaegix

import (
	"strings"
	"testing"
	"unsafe"
)

// TestExecGrowsTheFrameInPlace: cells run through Exec give Eval's values,
// every cell adds slots to the global frame, and yaegi's own resize then
// finds them made: the frame is reallocated a handful of times over 300
// cells, not at each one (as Eval alone does).
func TestExecGrowsTheFrameInPlace(t *testing.T) {
	yi := newInterp(t, nil, nil)
	e, err := NewExec(yi)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"var x = 40", "func add(n int) int { return x + n }"} {
		if _, err := e.Eval(src); err != nil {
			t.Fatal(err)
		}
	}
	moves, last := 0, e.frameLen()
	base := unsafe.SliceData(*e.data)
	for i := range 300 {
		v, err := e.Eval("x + 1 + add(1)")
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Int(); got != 82 {
			t.Fatalf("cell %d = %d; want 82", i, got)
		}
		if n := e.frameLen(); n <= last {
			t.Fatalf("cell %d left the frame at %d slots; want more than %d (yaegi gives temporaries global slots: Exec's reason)", i, n, last)
		} else {
			last = n
		}
		if p := unsafe.SliceData(*e.data); p != base {
			moves++
			base = p
		}
	}
	if moves > 12 {
		t.Errorf("the global frame moved %d times in 300 cells; want a few (doubling)", moves)
	}
	// yaegi's own Eval, in between, resizes to the exact size.
	if _, err := yi.Eval(strings.Repeat("x + ", 20) + "1"); err != nil {
		t.Fatal(err)
	}
	if v, err := e.Eval("x = 2; add(3)"); err != nil || v.Int() != 5 {
		t.Errorf("after a plain Eval: %v, %v; want 5, nil", v, err)
	}
}
