package lower

import (
	"fmt"
	"testing"
)

// BenchmarkLowerCell lowers a typical cell in a session of 100 earlier
// cells (declarations, statements, a generic function, imports).
func BenchmarkLowerCell(b *testing.B) {
	for _, tc := range []struct{ name, cell string }{
		{"plain", "total += len(fmt.Sprint(x40))"},
		{"range-int-min", "for i := range 10 { total += min(i, x8) }"},
		{"generic-slices", "ys := slices.Sorted(maps.Keys(m2))\nfmt.Println(Map(ys, func(s string) int { return len(s) }))"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := NewSession(Options{})
			commit := func(c string) {
				b.Helper()
				if _, err := s.Lower(c); err != nil {
					b.Fatalf("%q: %v", c, err)
				}
				s.Commit(c)
			}
			commit("import (\n\"fmt\"\n\"maps\"\n\"slices\"\n\"strings\"\n)\ntotal := 0")
			commit("func Map[T, U any](s []T, f func(T) U) []U { var r []U; for _, v := range s { r = append(r, f(v)) }; return r }")
			for i := range 98 {
				switch i % 4 {
				case 0:
					commit(fmt.Sprintf("x%d := %d", i, i))
				case 1:
					commit(fmt.Sprintf("func f%d(a int) string { return strings.Repeat(\"x\", a) }", i))
				case 2:
					commit(fmt.Sprintf("type T%d struct{ A int; B string }\nm%d := map[string]int{\"a\": %d}", i, i, i))
				default:
					commit(fmt.Sprintf("fmt.Println(f%d(%d), x%d)", i-2, i, i-3))
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Lower(tc.cell); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLowerSessionLength lowers one cell after n earlier cells of
// declarations and statements: the front end's cost per cell against the
// session's length (it type-checks the whole session for each cell).
func BenchmarkLowerSessionLength(b *testing.B) {
	for _, n := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("cells-%d", n), func(b *testing.B) {
			s := NewSession(Options{})
			commit := func(c string) {
				b.Helper()
				if _, err := s.Lower(c); err != nil {
					b.Fatalf("%q: %v", c, err)
				}
				s.Commit(c)
			}
			commit("import \"fmt\"\ntotal := 0")
			for i := range n {
				if i%2 == 0 {
					commit(fmt.Sprintf("type T%d struct{ A int }\nfunc (t T%d) M() int { return t.A }\nfunc f%d() int { return T%d{%d}.M() }", i, i, i, i, i))
				} else {
					commit(fmt.Sprintf("total += f%d()", i-1))
				}
			}
			cell := "for i := range 3 { total += i }\nfmt.Sprint(total)"
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Lower(cell); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
