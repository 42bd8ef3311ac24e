package lower

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twin runs the same cells through a session that checks incrementally
// and one that always checks the whole model (the reference), and fails
// on the first cell whose lowered code, source map or error differs.
type twin struct {
	t          *testing.T
	inc, whole *Session
}

func newTwin(t *testing.T) *twin { return newTwinOpts(t, Options{}) }

func newTwinOpts(t *testing.T, opts Options) *twin {
	whole := NewSession(opts)
	whole.fullOnly = true
	return &twin{t: t, inc: NewSession(opts), whole: whole}
}

// cell lowers src in both sessions, compares, and commits it when it
// lowered without a type error (as the REPL does when it then runs).
func (tw *twin) cell(name, src string) string {
	tw.t.Helper()
	a, am, aerr := tw.inc.LowerMap(src)
	b, bm, berr := tw.whole.LowerMap(src)
	if fmt.Sprint(aerr) != fmt.Sprint(berr) {
		tw.t.Fatalf("%s: cell %q: incremental error %v; whole model %v", name, src, aerr, berr)
	}
	if a != b {
		tw.t.Fatalf("%s: cell %q lowered differently\nincremental:\n%s\nwhole model:\n%s", name, src, a, b)
	}
	if fmt.Sprint(am) != fmt.Sprint(bm) {
		tw.t.Fatalf("%s: cell %q: source maps differ", name, src)
	}
	if aerr == nil {
		tw.inc.Commit(src)
		tw.whole.Commit(src)
	}
	return fmt.Sprint(aerr)
}

// commitOnly commits src in both sessions without lowering it, as the
// sandbox does with a cell the front end has nothing to do for.
func (tw *twin) commitOnly(src string) {
	tw.inc.Commit(src)
	tw.whole.Commit(src)
}

func (tw *twin) typeOf(name, expr string) {
	tw.t.Helper()
	a, aerr := tw.inc.TypeOf(expr)
	b, berr := tw.whole.TypeOf(expr)
	if a != b || fmt.Sprint(aerr) != fmt.Sprint(berr) {
		tw.t.Fatalf("%s: :type %s: incremental %q %v; whole model %q %v", name, expr, a, aerr, b, berr)
	}
}

// TestIncrementalMatchesWholeModel runs every conformance script, cut into
// cells as the REPL's Split cuts it, through both checks.
func TestIncrementalMatchesWholeModel(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance cases: %v", err)
	}
	alone, checks := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Every cell lowered; then every other one only committed.
		for _, skip := range []bool{false, true} {
			tw := newTwin(t)
			for i, c := range Split(string(src)) {
				if skip && i%2 == 1 {
					tw.commitOnly(c)
					continue
				}
				tw.cell(filepath.Base(f), c)
			}
			alone += tw.inc.inc.alone
			checks += tw.inc.inc.checks
		}
	}
	// The comparison is worth something only if most cells took the
	// incremental path; a regression that sends every cell to the whole
	// model would pass it unnoticed.
	if alone*2 < checks {
		t.Errorf("only %d of %d cells were checked alone", alone, checks)
	}
	t.Logf("%d of %d cells checked alone", alone, checks)
}

// TestIncrementalSessions are REPL sessions over the cases where checking
// a cell alone could go wrong: each cell must lower (or fail) exactly as
// with the whole model.
func TestIncrementalSessions(t *testing.T) {
	sessions := map[string][]string{
		"redefine-var":                          {"x := 1", "y := x + 1", "x := \"s\"", "x + \"t\"", "y + 1", "var z = y"},
		"redefine-func-used-in-body":            {"func f() int { return 1 }", "func g() int { return f() }", "func f() string { return \"a\" }", "g() + 1", "f() + \"b\""},
		"redefine-func-in-signature-var":        {"func f() int { return 1 }", "v := f()", "func f() string { return \"a\" }", "v + 1", "w := f()\nw + \"x\""},
		"redefine-type-with-dependents":         {"type T struct{ A int }", "func mk() T { return T{1} }", "var t0 T", "type T struct{ B string }", "mk().A", "mk().B", "t0.A", "T{B: \"x\"}.B"},
		"redefine-type-in-same-cell-as-use":     {"type T int", "func f() T { return 1 }", "type T string\nvar s T = f()", "type T string\nx := f() + 1"},
		"methods-added-later":                   {"type T struct{ n int }", "func (t T) Get() int { return t.n }", "T{1}.Get()", "func (t *T) Set(n int) { t.n = n }", "var t T\nt.Set(3)\nt.Get()", "type G interface{ Get() int; Set(int) }", "var g G = &T{}\n_ = g"},
		"method-on-earlier-type-used-same-cell": {"type T int", "func (t T) Twice() T { return t * 2 }\nT(2).Twice()", "T(3).Twice()"},
		"stringer-later":                        {"import \"fmt\"", "type C int", "func (c C) String() string { return \"c\" }", "fmt.Println([]C{1, 2})", "x := []C{3}\nx", "type Box struct{ c C }", "fmt.Println(Box{1})", "var i fmt.Stringer = C(1)\nfmt.Println([]any{i})"},
		"generics-across-cells":                 {"func Map[T, U any](s []T, f func(T) U) []U { var r []U; for _, v := range s { r = append(r, f(v)) }; return r }", "type Pair[K comparable, V any] struct{ K K; V V }", "func (p Pair[K, V]) Swap() Pair[V, K] { return Pair[V, K]{p.V, p.K} }", "import \"fmt\"", "fmt.Println(Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i) }))", "p := Pair[string, int]{\"a\", 1}\np.Swap()", "type W struct{ *Pair[int, int] }", "w := W{&Pair[int, int]{1, 2}}\nw.Pair.Swap()", "func Sum[N int | float64](xs ...N) N { var s N; for _, x := range xs { s += x }; return s }\nSum(1, 2)", "Sum(1.5, 2)"},
		"generic-uses-redefined":                {"k := 2", "func Scale[T ~int](x T) T { return x * T(k) }", "Scale(3)", "k := 5", "Scale(4)"},
		"imports-per-cell":                      {"import \"strings\"", "s := strings.ToUpper(\"a\")", "import str \"strings\"", "str.ToLower(s)", "import \"fmt\"\nfmt.Println(strings.Repeat(s, 2))", "import \"slices\"", "slices.Sorted(slices.Values([]int{3, 1}))", "import \"not/a/package\"", "fmt.Println(1)"},
		"unexported-fields":                     {"type p struct{ a, b int }", "func (x p) sum() int { return x.a + x.b }", "v := p{1, 2}", "v.a + v.sum()", "q := p{a: 1}\nq.b"},
		"errors":                                {"x := 1", "x + \"s\"", "undefined1", "type T struct{ A int }", "T{B: 1}", "var t T = 3", "x", "func f() { y := 1 }"},
		"universe-shadowed":                     {"func n(s []int) int { return len(s) }", "func len(x []int) string { return \"mine\" }", "n(nil)", "len([]int{1}) + \"!\""},
		"init-order":                            {"x := 1", "func get() int { return x }", "a, b := get(), 2", "var y = z + 1\nvar z = get()\nx := 10", "y"},
		"interfaces":                            {"type Shape interface{ Area() float64 }", "type Sq struct{ s float64 }", "func (q Sq) Area() float64 { return q.s * q.s }", "var sh Shape = Sq{2}", "sh.Area()", "import \"fmt\"", "fmt.Println(sh)", "shapes := []Shape{Sq{1}, Sq{3}}\nfor _, x := range shapes { fmt.Println(x.Area()) }"},
		"loops-and-closures":                    {"fs := []func() int{}", "for i := 0; i < 3; i++ { fs = append(fs, func() int { return i }) }", "for i := range 3 { _ = i }", "for _, f := range fs { println(f()) }"},
		"type-alias-and-const":                  {"const N = 3", "type A [N]int", "var a A", "len(a)", "const N = 4", "type B = A", "var b B\nlen(b)"},
		"reset-like-redeclare-all":              {"type T int", "func (T) M() {}", "type T struct{}", "func (T) N() {}", "T{}.N()", "T{}.M()"},
	}
	for name, cells := range sessions {
		t.Run(name, func(t *testing.T) {
			tw := newTwin(t)
			for _, c := range cells {
				tw.cell(name, c)
			}
			for _, e := range []string{"x", "T{}", "Map[int, int]", "p", "sh", "fs", "a"} {
				tw.typeOf(name, e)
			}
		})
		t.Run(name+"-unlowered", func(t *testing.T) {
			tw := newTwin(t)
			for i, c := range cells {
				if i%2 == 0 {
					tw.commitOnly(c)
					continue
				}
				tw.cell(name, c)
			}
			for _, e := range []string{"x", "T{}", "Map[int, int]", "p", "sh", "fs", "a"} {
				tw.typeOf(name, e)
			}
		})
	}
}

// TestIncrementalChecksAlone pins which cells take the incremental path,
// so that a change sending them all to the whole model shows.
func TestIncrementalChecksAlone(t *testing.T) {
	s := NewSession(Options{})
	run := func(c string, alone bool) {
		t.Helper()
		before := s.inc.alone
		if _, err := s.Lower(c); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		if got := s.inc.alone > before; got != alone {
			t.Fatalf("%q: checked alone %v; want %v", c, got, alone)
		}
		s.Commit(c)
	}
	run("import \"fmt\"\ntype T struct{ A int }\nfunc (t T) M() int { return t.A }", true)
	run("func f() T { return T{1} }", true)
	run("fmt.Println(f().M())", true)
	run("func (t T) N() int { return 2 }", false) // a method on an earlier cell's type
	run("f().N()", true)                          // after a rebuild
	run("func f() T { return T{2} }", true)       // f is mentioned only by statements
	run("x := f()", true)
	run("func g() T { return f() }", true)
	run("type T struct{ B string }", false) // f's and g's signatures mention T
	run("y := x.B", true)                   // after a rebuild; x now has the new T, as in the whole model
	run("func f() int { return 3 }", false) // x's type came from f
}

// TestIncrementalCatchesUp: cells committed without lowering are checked
// alone before the next lowered cell, without a rebuild; too many of them
// are one rebuild.
func TestIncrementalCatchesUp(t *testing.T) {
	s := NewSession(Options{})
	for i := range 10 {
		s.Commit(fmt.Sprintf("type T%d struct{ A int }\nfunc (t T%d) M() int { return t.A }\nx%d := T%d{%d}.M()", i, i, i, i, i))
	}
	if _, err := s.Lower("for i := range x9 { _ = T9{i} }"); err != nil {
		t.Fatal(err)
	}
	if s.inc.alone != 1 || s.inc.rebuilds != 0 || len(s.inc.pending) != 0 {
		t.Fatalf("alone %d, rebuilds %d, pending %d; want 1, 0, 0", s.inc.alone, s.inc.rebuilds, len(s.inc.pending))
	}
	for i := range maxPending + 1 {
		s.Commit(fmt.Sprintf("y%d := x9 + %d", i, i))
	}
	if _, err := s.Lower("for i := range y3 { _ = T9{i} }"); err != nil {
		t.Fatal(err)
	}
	if s.inc.alone != 2 || s.inc.rebuilds != 1 {
		t.Fatalf("alone %d, rebuilds %d; want 2, 1", s.inc.alone, s.inc.rebuilds)
	}
	if _, err := s.Lower("y3 + \"s\""); err == nil {
		t.Fatal("no error for int + string after a rebuild")
	}
}

// TestIncrementalUploadChanged: a re-uploaded package replaces the old one
// for every cell, as in the whole model, though the cells that used it
// were checked against its old types.
func TestIncrementalUploadChanged(t *testing.T) {
	classes := t.TempDir()
	dir := filepath.Join(classes, "src", "geo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "geo.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package geo\n\ntype Pt struct{ X, Y int }\n")
	tw := newTwinOpts(t, Options{Classes: classes})
	tw.cell("upload", "import \"geo\"")
	tw.cell("upload", "var p geo.Pt")
	tw.cell("upload", "p.X + 1")
	write("package geo\n\ntype Pt struct{ Lat, Lon float64 }\n\n// a longer file: another size\n")
	if got := tw.cell("upload", "p.X + 1"); got == "<nil>" {
		t.Fatal("p.X accepted after geo.Pt lost X")
	}
	tw.cell("upload", "p.Lat + 0.5")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tw.cell("upload", "x := 1")
	tw.cell("upload", "x + 1")
	if n := tw.inc.inc.rebuilds; n != 2 {
		t.Errorf("%d rebuilds; want 2 (one per change of geo)", n)
	}
}

// TestNoPackageIdentityComparisons: an object of an earlier cell keeps the
// package of the check that made it, so `p == chk.pkg` is false for it
// where the whole model said true; rewrites ask chk.local(p). A rewrite
// that compares with chk.pkg directly fails here, with its place.
func TestNoPackageIdentityComparisons(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	isChkPkg := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "pkg" {
			return false
		}
		switch x := ast.Unparen(sel.X).(type) {
		case *ast.Ident:
			return x.Name == "chk"
		case *ast.SelectorExpr:
			return x.Sel.Name == "chk"
		}
		return false
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) && (isChkPkg(b.X) || isChkPkg(b.Y)) {
				t.Errorf("%s: compares a package with chk.pkg; use chk.local(p)", fset.Position(b.Pos()))
			}
			return true
		})
	}
}
