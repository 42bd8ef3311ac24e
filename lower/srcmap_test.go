package lower

import (
	"fmt"
	"strings"
	"testing"
)

func TestSourceMapPos(t *testing.T) {
	rangeCell := "x := 0\nfor i := range 3 {\n\tx += i\n\tif i == 2 { panic(\"boom\") }\n}"
	reordered := "f()\nfunc f() { fmt.Println(max(1.5, float64(len(\"ab\")))) }\nimport \"fmt\""
	generic := "import \"slices\"\nfunc Map[T, U any](s []T, f func(T) U) []U {\n\tvar r []U\n\tfor _, v := range s { r = append(r, f(v)) }\n\treturn r\n}\n" +
		"ys := Map([]int{3, 1}, func(i int) string { return fmt.Sprint(i) })\nslices.Sort(ys)\nimport \"fmt\""
	tests := []struct {
		name  string
		cell  string
		token string // a text occurring once in the lowered cell
		want  string // its line:column in the cell; "" for added code
	}{
		{name: "range-int-body", cell: rangeCell, token: `panic("boom")`, want: "4:14"},
		{name: "range-int-header", cell: rangeCell, token: "i < (3)", want: "2:1"},
		{name: "before-rewrite", cell: rangeCell, token: "x := 0", want: "1:1"},
		{name: "reordered-import", cell: reordered, token: `"fmt"`, want: "3:8"},
		{name: "reordered-decl", cell: reordered, token: "fmt.Println", want: "2:12"},
		{name: "reordered-stmt", cell: reordered, token: "f()\n", want: "1:1"},
		{name: "constant-max", cell: reordered, token: "float64(2.0)", want: "2:24"},
		{name: "instance-of-cell-generic", cell: generic, token: "\treturn r", want: "5:1"},
		{name: "instance-param", cell: generic, token: "s []int", want: "2:20"},
		{name: "std-instance", cell: generic, token: "n := len(x)", want: ""},
		{name: "instance-call", cell: generic, token: "ʟSort_8d9df228(ys)", want: "8:1"},
		{name: "after-instance-call", cell: generic, token: "(ys)", want: "8:12"},
		{name: "multibyte-before", cell: "s := \"ʟé\"\nfor i := range 2 { _ = len(s) + i }", token: "len", want: "2:24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, m, err := NewSession(Options{}).LowerMap(tt.cell)
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				t.Fatalf("got no map for lowered cell %q", out)
			}
			if strings.Count(out, tt.token) != 1 {
				t.Fatalf("token %q occurs %d times in %q", tt.token, strings.Count(out, tt.token), out)
			}
			i := strings.Index(out, tt.token)
			line := strings.Count(out[:i], "\n") + 1
			col := i - strings.LastIndex(out[:i], "\n")
			l, c, ok := m.Pos(line, col)
			got := ""
			if ok {
				got = fmt.Sprintf("%d:%d", l, c)
			}
			if got != tt.want {
				t.Errorf("got %q; want %q (lowered %d:%d of %q)", got, tt.want, line, col, out)
			}
		})
	}
}

func TestSourceMapIdentity(t *testing.T) {
	var m *SourceMap
	if l, c, ok := m.Pos(3, 4); !ok || l != 3 || c != 4 {
		t.Errorf("got %d:%d %v; want 3:4 true", l, c, ok)
	}
	out, m, err := NewSession(Options{}).LowerMap("x := 1\nx + 2")
	if err != nil {
		t.Fatal(err)
	}
	if m != nil || out != "x := 1\nx + 2" {
		t.Errorf("got %q, %v; want the cell, no map", out, m)
	}
}

func TestSourceMapOutOfRange(t *testing.T) {
	_, m, err := NewSession(Options{}).LowerMap("for i := range 2 { println(i) }")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 1}, {1, 0}, {99, 1}} {
		if _, _, ok := m.Pos(p[0], p[1]); ok {
			t.Errorf("Pos(%d, %d): got ok; want not ok", p[0], p[1])
		}
	}
}
