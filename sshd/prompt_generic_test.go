package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// A value of a generic struct type's instance with methods converted to
// error keeps all its fields (yaegi's wrapper kept the last one), so an
// assertion, a type switch and errors.As find it, through a worker
// process; each line of want is what `go run` prints.
func TestGenericInstanceErrorsKeepTheirValue(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := `import ("errors"; "fmt")
type Pair[T any] struct{ A, B T }
func (p Pair[T]) Error() string { return fmt.Sprint(p.A, "/", p.B) }
var pe error = Pair[string]{"p", "q"}
fmt.Println(pe, pe.(Pair[string]).A)
var target Pair[string]
fmt.Println(errors.As(fmt.Errorf("w: %w", pe), &target), target.A, target.B)
`
	want := "p/q p\ntrue p q\n"
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// errors.Is and errors.As follow the Unwrap() []error of a generic
// type's instance (yaegi took it for Unwrap() error), at the prompt,
// through a worker process.
func TestScreenErrorsFollowAGenericInstancesJoinedErrors(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 200, 30)
	run(s, `import ("errors"; "fmt")`)
	run(s, `var ErrA = errors.New("a")`)
	// One cell: a generic type's methods declared in a later cell are not
	// its instances' (docs/prompt.md, Not yet).
	run(s, `type Multi[T any] struct{ errs []error; tag T }; func (m Multi[T]) Error() string { return fmt.Sprint("multi ", m.tag) }; func (m Multi[T]) Unwrap() []error { return m.errs }`)
	cell := `[]bool{errors.Is(Multi[int]{[]error{ErrA}, 1}, ErrA), errors.Is(fmt.Errorf("w: %w", Multi[string]{nil, "s"}), ErrA)}`
	s.Type(cell)
	s.Keys("Enter")
	s.WaitTail("go> "+cell, "[true false]", "go>")
}
