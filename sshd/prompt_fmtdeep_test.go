package sshd_test

import (
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// fmtDeepDecls declare the session's types for the String/Error-at-any-depth
// tests (issues 14 and 16).
const fmtDeepDecls = `import "fmt"
type Color int
const (Red Color = iota; Green; Blue)
func (c Color) String() string { return [...]string{"Red", "Green", "Blue", "Other"}[c] }
type Sq struct{ S int }
func (s Sq) Area() float64 { return float64(s.S * s.S) }
func (s Sq) String() string { return fmt.Sprintf("Sq(%d)", s.S) }
type Shape interface{ Area() float64 }
type Box struct{ C Color; Sh Shape }
type E struct{ msg string }
func (e E) Error() string { return "E:" + e.msg }
type P struct{ X int }
type A struct{ V any; E error; S Shape; N *P }
type B struct{ x Color; Y Color }
`

// fmt calls String and Error of the session's types at any depth, as Go
// does, in generic functions too: each line of want is what `go run`
// prints for the same program.
// A value behind an interface (an []any's element, a field of type any)
// is formatted by its method too, and so are its parts (B's Y).
func TestFmtMethodsAtAnyDepth(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := fmtDeepDecls + `fmt.Println([]Color{Red, Blue})
fmt.Println(map[string]Color{"a": Red, "b": Green})
var s Shape = Sq{3}
fmt.Println(s)
fmt.Println(Green + 1)
fmt.Println(Box{Blue, Sq{2}})
fmt.Println([]Shape{Sq{1}, Sq{2}})
fmt.Printf("%v %s %d\n", []Color{Red}, Green, Blue)
fmt.Println(fmt.Sprint([][]Color{{Red}, {Blue}}))
fmt.Println(&Box{Red, nil})
fmt.Println(map[Color]int{Blue: 1, Red: 2})
fmt.Println([]error{E{"x"}})
fmt.Println(struct{ A []Color }{[]Color{Blue}})
fmt.Println(fmt.Sprintf("%+v", Box{Green, Sq{5}}))
fmt.Println(A{P{1}, fmt.Errorf("e"), Sq{2}, nil})
fmt.Println(A{})
fmt.Printf("%v %+v\n", B{Red, Green}, B{Red, Green})
var i interface{ Area() float64 } = Sq{4}
fmt.Println(i)
fmt.Printf("%q %x\n", []Color{Red}, Box{Green, nil})
type W[T any] struct{ V T; S Shape }
func Show[T any](xs []T, w W[T]) { fmt.Println(xs, w) }
Show([]Color{Red}, W[Color]{V: Blue})
Show([]int{1}, W[int]{V: 2, S: Sq{1}})
fmt.Println([]any{Red, 1, Sq{2}, E{"y"}}, map[string]any{"a": Blue}, A{V: Green})
fmt.Printf("%+v %d %s\n", []any{P{1}}, []any{Blue}, []any{E{"z"}})
fmt.Printf("%v %+v\n", []any{B{Red, Blue}}, map[string]any{"b": B{Y: Green}})
`
	want := `[Red Blue]
map[a:Red b:Green]
Sq(3)
Blue
{Blue Sq(2)}
[Sq(1) Sq(2)]
[Red] Green 2
[[Red] [Blue]]
&{Red <nil>}
map[Red:2 Blue:1]
[E:x]
{[Blue]}
{C:Green Sh:Sq(5)}
{{1} e Sq(2) <nil>}
{<nil> <nil> <nil> <nil>}
{0 Green} {x:0 Y:Green}
Sq(4)
["Red"] {477265656e <nil>}
[Red] {Blue <nil>}
[1] {2 Sq(1)}
[Red 1 Sq(2) E:y] map[a:Blue] {Green <nil> <nil> <nil>}
[{X:1}] [2] [E:z]
[{0 Blue}] map[b:{x:0 Y:Green}]
`
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// The prompt shows the session's values with their methods at any depth,
// field names included (through a worker process, on tmux's screen).
func TestScreenShownMethodsAtAnyDepth(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	for _, cell := range strings.Split(strings.TrimSpace(fmtDeepDecls), "\n") {
		run(s, cell)
	}
	for _, tc := range []struct{ cell, want string }{
		{"Box{Blue, Sq{2}}", "{C:Blue Sh:Sq(2)}"},
		{"[]Color{Red, Blue}", "[Red Blue]"},
		{"map[Color]int{Blue: 1, Red: 2}", "map[Red:2 Blue:1]"},
		{"&Box{Red, nil}", "&{C:Red Sh:<nil>}"},
		{"[]Shape{Sq{1}, Sq{2}}", "[Sq(1) Sq(2)]"},
		{"B{Red, Green}", "{x:0 Y:Green}"},
		{"Green + 1", "Blue"},
		{"[]any{Red, 1, Sq{3}}", "[Red 1 Sq(3)]"},
		{"A{V: Blue}", "{V:Blue E:<nil> S:<nil> N:<nil>}"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
