package lower

import (
	"fmt"
	"testing"
)

// BenchmarkLowerChainedCells lowers one cell after n heavy cells each of
// which declares a type, a method and a function using the previous
// cell's: every earlier cell is a dependency of the last one, the worst
// case for checking only what a cell depends on. whole is the same with
// every check the whole model's (the reference of the incremental one).
func BenchmarkLowerChainedCells(b *testing.B) {
	for _, whole := range []bool{false, true} {
		for _, n := range []int{0, 100, 1000} {
			name := fmt.Sprintf("cells-%d", n)
			if whole {
				name = "whole-" + name
			}
			b.Run(name, func(b *testing.B) {
				s := NewSession(Options{})
				s.fullOnly = whole
				commit := func(c string) {
					b.Helper()
					if _, err := s.Lower(c); err != nil {
						b.Fatalf("%q: %v", c, err)
					}
					s.Commit(c)
				}
				commit("import \"fmt\"\ntotal := 0\ntype T0 struct{ A int }\nfunc (t T0) M() int { return t.A }\nfunc f0() int { return T0{}.M() }")
				for i := 1; i <= n; i++ {
					commit(fmt.Sprintf("type T%d struct{ A int; P *T%d }\nfunc (t T%d) M() int { return t.A + t.P.M() + f%d() }\nfunc f%d() int { return T%d{P: &T%d{}}.M() }", i, i-1, i, i-1, i, i, i-1))
				}
				cell := fmt.Sprintf("for i := range 3 { total += i + f%d() }\nfmt.Sprint(total)", n)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Lower(cell); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
