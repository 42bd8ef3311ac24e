package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// String, Format and GoString of the session's types at any depth, on
// tmux's screen, each declaration and use in a cell of its own (the front
// end's incremental check), with the session in a worker process: slices
// and maps of them held in an interface, pointers with String behind an
// any, Format for every verb (%x of the map prints its key in hex too, as
// Go does) and for the shown value.
func TestScreenFmtMethodsAtAnyDepth(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	run(s, `import "fmt"`)
	run(s, `type Color int; func (c Color) String() string { return [...]string{"Red", "Green", "Blue"}[c] }`)
	run(s, `type F int; func (f F) Format(s fmt.State, c rune) { fmt.Fprintf(s, "F<%c:%d>", c, int(f)) }`)
	run(s, `type T struct{ N int }; func (t *T) String() string { return fmt.Sprint("T", t.N) }`)
	run(s, `var p any = &T{4}`)
	for _, tc := range []struct{ cell, want string }{
		{`fmt.Println([]any{[]Color{0, 2}}, any(map[string]Color{"a": 1}))`, "[[Red Blue]] map[a:Green]"},
		{`fmt.Printf("%d %v %x\n", F(1), []F{2}, map[string]F{"k": 3})`, "F<d:1> [F<v:2>] map[6b:F<x:3>]"},
		{`fmt.Println(p, []any{p})`, "T4 [T4]"},
		{`fmt.Printf("%#v\n", []any{T{6}, F(7)})`, "[]interface {}{main.T{N:6}, F<v:7>}"},
		{`[]F{5}`, "[F<v:5>]"},
		{`map[string]any{"c": []Color{1}}`, "map[c:[Green]]"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
