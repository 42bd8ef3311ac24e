package lower

import (
	"strings"
	"testing"
)

// TestUnits pins how the one splitter cuts a cell: units, kinds and
// positions, a header's semicolons kept, the scanner's first error.
func TestUnits(t *testing.T) {
	type want struct {
		text         string
		decl, imp    bool
		line, column int
	}
	for _, tc := range []struct {
		cell string
		want []want
		err  string
	}{
		{"x := 1; y := 2\nx + y", []want{{"x := 1", false, false, 1, 1}, {"y := 2", false, false, 1, 9}, {"x + y", false, false, 2, 1}}, ""},
		{"import \"fmt\"\nfunc f() {}\nf() // call", []want{{"import \"fmt\"", true, true, 1, 1}, {"func f() {}", true, false, 2, 1}, {"f()", false, false, 3, 1}}, ""},
		{"for i := 0; i < 3; i++ { _ = i }", []want{{"for i := 0; i < 3; i++ { _ = i }", false, false, 1, 1}}, ""},
		{"if x := f(); x > 0 {\n}", []want{{"if x := f(); x > 0 {\n}", false, false, 1, 1}}, ""},
		{"type T struct{}\nfunc (t *T) M() {}", []want{{"type T struct{}", true, false, 1, 1}, {"func (t *T) M() {}", true, false, 2, 1}}, ""},
		{"func(a int) int { return a }(3)", []want{{"func(a int) int { return a }(3)", false, false, 1, 1}}, ""},
		// A receiver longer than the old 24-token look-ahead is a method still.
		{"func (r *T[K, V, W, X, Y, Z, A, B, C, D, E, F, G, H, I, J, L, M, N, O, P, Q]) Get() {}", []want{{"func (r *T[K, V, W, X, Y, Z, A, B, C, D, E, F, G, H, I, J, L, M, N, O, P, Q]) Get() {}", true, false, 1, 1}}, ""},
		// The semicolon inserted at the end of an open bracket is past the text.
		{"(1", []want{{"(1", false, false, 1, 1}}, ""},
		{"//line other.go:10\nx := 1", []want{{"x := 1", false, false, 2, 1}}, ""},
		{"x := \"open", nil, "1:6: string literal not terminated"},
	} {
		units, err := Units(tc.cell)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Units(%q) error = %v; want %s", tc.cell, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Units(%q): %v", tc.cell, err)
			continue
		}
		var got []want
		for _, u := range units {
			got = append(got, want{tc.cell[u.Start:u.End], u.Decl, u.Import, u.Line, u.Col})
		}
		if len(got) != len(tc.want) {
			t.Errorf("Units(%q) = %+v; want %+v", tc.cell, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Units(%q)[%d] = %+v; want %+v", tc.cell, i, got[i], tc.want[i])
			}
		}
	}
}

// TestPlanMarksAddedCalls: a statement the lowering runs in a function of
// its own comes back as the function and its call, the call with no value
// to show; a cell left alone has no units of its own.
func TestPlanMarksAddedCalls(t *testing.T) {
	s := NewSession(Options{})
	p, err := s.Plan("for i := range 2 { _ = i }")
	if err != nil {
		t.Fatal(err)
	}
	if p.Map == nil || len(p.Units) != 2 {
		t.Fatalf("Plan = %q with %d units; want a function and its call", p.Src, len(p.Units))
	}
	fn, call := p.Units[0], p.Units[1]
	if !fn.Decl || !strings.HasPrefix(p.Src[fn.Start:fn.End], "func ʟ") || p.NoValue[0] {
		t.Errorf("unit 0 = %q (decl %v, no value %v); want the function", p.Src[fn.Start:fn.End], fn.Decl, p.NoValue[0])
	}
	if call.Decl || !p.NoValue[1] {
		t.Errorf("unit 1 = %q (decl %v, no value %v); want its call, with no value", p.Src[call.Start:call.End], call.Decl, p.NoValue[1])
	}
	s.Commit("for i := range 2 { _ = i }")
	p, err = s.Plan("1 + 2")
	if err != nil {
		t.Fatal(err)
	}
	if p.Src != "1 + 2" || p.Units != nil || p.Map != nil {
		t.Errorf("Plan(1 + 2) = %+v; want the cell itself", p)
	}
}
