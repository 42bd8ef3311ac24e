package sshd_test

import (
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// storedDecls declare the session's types for the tests of values stored
// in an interface (issue 14, "What the prompt shows").
const storedDecls = `import "fmt"
type Color int
const (Red Color = iota; Green; Blue)
func (c Color) String() string { return [...]string{"Red", "Green", "Blue"}[c] }
type Money int
func (m Money) Format(f fmt.State, verb rune) { fmt.Fprintf(f, "$%d", int(m)) }
`

// An array of the session's types stored in an interface prints by its
// elements' methods, and a stored slice or array of a type with Format
// by it under %d too: each line of want is what `go run` prints.
func TestStoredArraysAndFormattersPrintByTheirMethods(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := storedDecls + `var a any = [2]Color{Blue, Red}
fmt.Println(a)
fmt.Printf("%v %T %d\n", a, a, a)
var m any = []Money{1, 2}
fmt.Printf("%d %v\n", m, m)
var am any = [1]Money{3}
fmt.Printf("%d\n", am)
`
	want := `[Blue Red]
[Blue Red] [2]main.Color [2 0]
[$1 $2] [$1 $2]
[$3]
`
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// The prompt shows a stored array by its elements' methods (through a
// worker process, on tmux's screen).
func TestScreenShownStoredArray(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	for _, cell := range strings.Split(strings.TrimSpace(storedDecls), "\n") {
		run(s, cell)
	}
	run(s, "var a any = [2]Color{Green, Blue}")
	for _, tc := range []struct{ cell, want string }{
		{"a", "[Green Blue]"},
		{"[]any{a, Red}", "[[Green Blue] Red]"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
