package lower

import (
	"bytes"
	"os"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runLowered lowers cell in a new session and runs it in a fresh yaegi,
// piece by piece as the REPL does; it returns what the code printed.
func runLowered(tb testing.TB, cell string) string {
	tb.Helper()
	out, err := NewSession(Options{}).Lower(cell)
	if err != nil {
		tb.Fatalf("lower: %v", err)
	}
	var stdout bytes.Buffer
	os.Setenv("YAEGI_SPECIAL_STDIO", "1") // the code's os.Stderr (println's) is Options.Stderr
	i := interp.New(interp.Options{Stdout: &stdout, Stderr: &stdout})
	if err := i.Use(stdlib.Symbols); err != nil {
		tb.Fatal(err)
	}
	if err := i.Use(Symbols); err != nil {
		tb.Fatal(err)
	}
	if err := i.Use(Runtime); err != nil {
		tb.Fatal(err)
	}
	for _, piece := range Split(out) {
		if _, err := i.Eval(piece); err != nil {
			tb.Fatalf("eval %q: %v\nlowered:\n%s", piece, err, out)
		}
	}
	return stdout.String()
}

func TestLoweredWorkarounds(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want string
	}{
		{
			name: "top-level-defer-runs-at-cell-end-with-early-arguments",
			cell: "import \"fmt\"\nx := 1\ndefer fmt.Println(\"d\", x)\nx = 2\ndefer func() { fmt.Println(\"last\", x) }()\nfmt.Println(\"body\", x)",
			want: "body 2\nlast 2\nd 1\n",
		},
		{
			name: "top-level-defer-in-loop",
			cell: "import \"fmt\"\nfor i := range 3 { defer fmt.Print(i, \" \") }\nfmt.Print(\"body \")",
			want: "body 2 1 0 ",
		},
		{
			name: "deferred-literal-sees-its-iteration",
			cell: "func f() (out []int) {\n\tfor _, v := range []int{1, 2, 3} {\n\t\tw := v * 10\n\t\tdefer func() { out = append(out, w+v) }()\n\t}\n\treturn nil\n}\nprintln(len(f()), f()[0], f()[2])",
			want: "3 33 11\n",
		},
		{
			name: "printf-type-of-named-types",
			cell: "import \"fmt\"\ntype Count int\ntype P struct{ X int }\nconst c Count = 2\nfmt.Printf(\"%T %T %T %v\\n\", c, P{}, []Count{}, c)",
			want: "main.Count main.P []main.Count 2\n",
		},
		{
			name: "printf-numbers-of-stringers",
			cell: "import \"fmt\"\ntype Day int\nfunc (d Day) String() string { return \"day\" }\nfmt.Printf(\"%d %v %s %x %5.1f\\n\", Day(3), Day(3), Day(3), Day(3), 2.25)",
			want: "3 day day 646179   2.2\n",
		},
		{
			name: "print-errors-of-struct-types",
			cell: "import \"fmt\"\ntype E struct{ msg string }\nfunc (e E) Error() string { return e.msg }\nfmt.Println(E{\"a\"})\nfmt.Printf(\"%v|%s\\n\", E{\"b\"}, fmt.Errorf(\"w: %w\", E{\"c\"}))",
			want: "a\nb|w: c\n",
		},
		{
			name: "method-value-pointer-receiver",
			cell: "type C struct{ n int }\nfunc (c *C) Add(k int) { c.n += k }\nvar c C\nadd := c.Add\nadd(2)\nadd(3)\nprintln(c.n)",
			want: "5\n",
		},
		{
			name: "method-value-binds-value-receiver",
			cell: "type V int\nfunc (v V) Get() V { return v }\nv := V(1)\ng := v.Get\nv = 2\nprintln(g(), v)",
			want: "1 2\n",
		},
		{
			name: "method-expressions",
			cell: "import \"strings\"\ntype S string\nfunc (s S) Join(sep string, more ...string) string { return string(s) + sep + strings.Join(more, sep) }\nj := S.Join\ntype C struct{ n int }\nfunc (c *C) Inc() { c.n++ }\ninc := (*C).Inc\nc := &C{}\ninc(c)\nprintln(j(\"a\", \"-\", \"b\", \"c\"), c.n)",
			want: "a-b-c 1\n",
		},
		{
			name: "generic-type-alias",
			cell: "type Set[T comparable] = map[T]bool\nfunc Add[T comparable](s Set[T], v T) { s[v] = true }\ns := Set[string]{}\nAdd(s, \"x\")\nprintln(len(s), s[\"x\"])",
			want: "1 true\n",
		},
		{
			name: "iter-pull",
			cell: "import \"iter\"\nimport \"slices\"\nnext, stop := iter.Pull(slices.Values([]int{4, 5}))\na, _ := next()\nb, ok := next()\n_, more := next()\nstop()\nprintln(a, b, ok, more)",
			want: "4 5 true false\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runLowered(t, tt.cell); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}
