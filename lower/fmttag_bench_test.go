package lower_test

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/replhost/replhost/lower"
)

// BenchmarkTaggedConversion runs, lowered, a loop that stores a []Color
// (whose elements have a String method: tagged, fmttag.go) or a []int (not
// tagged) in an any, 1000 times an op: the difference is the tag's cost;
// and a Celsius of `type Celsius float64` (named in a box of its own,
// fmttagname.go) against a float64.
func BenchmarkTaggedConversion(b *testing.B) {
	for _, tc := range []struct{ name, val string }{{"untagged-ints", "is"}, {"tagged-colors", "cs"}, {"untagged-float", "f"}, {"named-celsius", "c"}} {
		b.Run(tc.name, func(b *testing.B) {
			i := interp.New(interp.Options{})
			for _, e := range []interp.Exports{stdlib.Symbols, lower.Runtime, lower.Symbols} {
				if err := i.Use(e); err != nil {
					b.Fatal(err)
				}
			}
			s := lower.NewSession(lower.Options{})
			imported := map[string]bool{} // as the sandbox: no import twice
			eval := func(cell string) {
				src, err := s.Lower(cell)
				if err != nil {
					b.Fatal(err)
				}
				for _, piece := range lower.Split(src) {
					if p := strings.TrimSpace(piece); strings.HasPrefix(p, "import ") && !strings.Contains(p, "\n") {
						if imported[p] {
							continue
						}
						imported[p] = true
					}
					if _, err := i.Eval(piece); err != nil {
						b.Fatalf("%q: %v", piece, err)
					}
				}
				s.Commit(cell)
			}
			eval("import \"fmt\"\ntype Color int\nfunc (c Color) String() string { return fmt.Sprint(\"C\", int(c)) }\nvar cs = []Color{1}\nvar is = []int{1}\nvar sink any\ntype Celsius float64\nvar c = Celsius(1)\nvar f = 1.0")
			loop := "func loop() { for range 1000 { sink = VAL } }"
			eval(strings.ReplaceAll(loop, "VAL", tc.val))
			for b.Loop() {
				if _, err := i.Eval("loop()"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
