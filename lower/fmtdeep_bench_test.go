package lower

import "testing"

// BenchmarkLowerFmtDeep lowers an fmt call whose operands are rebuilt for
// String at any depth (fmtdeep.go), beside the same call of operands that
// need nothing.
func BenchmarkLowerFmtDeep(b *testing.B) {
	for _, tc := range []struct{ name, cell string }{
		{"plain-struct", "fmt.Println(P{1, 2}, []int{1})"},
		{"deep", "fmt.Println(Box{Blue, Sq{2}}, []Color{Red}, map[Color]int{Red: 1}, &Box{})"},
		{"behind-any", `fmt.Println([]any{Red, 1}, map[string]any{"a": Blue})`},
		{"sharp-v", `fmt.Printf("%#v\n", Box{Blue, Sq{2}})`},
		{"converted-parts", `fmt.Println([]any{[]Color{Red}}, any(map[string]Color{"a": Blue}))`},
		{"format", `fmt.Printf("%d %v\n", F(1), []F{2})`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := NewSession(Options{})
			for _, c := range []string{
				`import "fmt"`,
				"type P struct{ X, Y int }",
				"type Color int\nconst (Red Color = iota; Green; Blue)",
				`func (c Color) String() string { return "c" }`,
				"type Sq struct{ S int }\nfunc (s Sq) Area() float64 { return 1 }",
				`func (s Sq) String() string { return "sq" }`,
				"type Shape interface{ Area() float64 }\ntype Box struct{ C Color; Sh Shape }",
				"type F int\nfunc (f F) Format(s fmt.State, c rune) {}",
			} {
				if _, err := s.Lower(c); err != nil {
					b.Fatalf("%q: %v", c, err)
				}
				s.Commit(c)
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
