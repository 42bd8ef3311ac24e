package lower

import "testing"

func TestTypeOf(t *testing.T) {
	s := NewSession(Options{})
	for _, c := range []string{`import "strconv"`, "type P struct{X int}", "x := P{1}", "func f() (int, error) { return 0, nil }"} {
		if _, err := s.Lower(c); err != nil {
			t.Fatal(c, err)
		}
		s.Commit(c)
	}
	for _, tc := range []struct{ expr, want, err string }{
		{"x", "P", ""},
		{"&x", "*P", ""},
		{"strconv.Atoi", "func(s string) (int, error)", ""},
		{"f()", "(int, error)", ""},
		{"x.X + 1", "int", ""},
		{"println(1)", "no value", ""},
		{"y", "", "1:1: undefined: y"},
		{"P", "", "1:1: P (type) is not an expression"},
	} {
		got, err := s.TypeOf(tc.expr)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if got != tc.want || errText != tc.err {
			t.Errorf("TypeOf(%q) = %q, %q; want %q, %q", tc.expr, got, errText, tc.want, tc.err)
		}
	}
}
