package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// localDecls declare a function returning values of types declared in
// it, which its caller prints without seeing the types.
const localDecls = `import ("fmt"; "strconv")
type Color int
func (c Color) String() string { return "C" + strconv.Itoa(int(c)) }
func mk() (any, any) { type L struct{ C Color; N int }; return []L{{1, 2}}, L{3, 4} }
`

// A value of a type declared in a function, stored in an interface and
// printed where the type is not seen, prints by its parts' methods (it
// printed [{1 2}] {3 4}), through a worker process; each line of want
// is what `go run` prints.
func TestLocalTypesPrintByTheirPartsMethodsElsewhere(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := localDecls + `a, b := mk()
fmt.Println(a, b)
fmt.Printf("%+v %T %T\n", b, a, b)
`
	want := "[{C1 2}] {C3 4}\n{C:C3 N:4} []main.L main.L\n"
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// The prompt shows them so (on tmux's screen, through a worker process).
func TestScreenShownLocalTypesValues(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 120, 30)
	run(s, `import ("fmt"; "strconv")`)
	run(s, `type Color int; func (c Color) String() string { return "C" + strconv.Itoa(int(c)) }`)
	run(s, "func mk() (any, any) { type L struct{ C Color; N int }; return []L{{1, 2}}, L{3, 4} }")
	run(s, "a, b := mk()")
	for _, tc := range []struct{ cell, want string }{
		{"a", "[{C:C1 N:2}]"},
		{"b", "{C:C3 N:4}"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
