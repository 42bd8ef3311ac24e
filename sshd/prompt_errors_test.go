package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// Errors and print helpers of the session's types on tmux's screen, each
// declaration and use a cell of its own, the session in a worker process:
// a struct error returned as error is shown by its Error (yaegi stored it
// bare), a logging helper's ...any reaches fmt with each operand's method
// by its verb (yaegi's wrappers printed as {0xc000… {…}}), errors.As and
// errors.Unwrap walk the session's Unwrap through a compiled %w, and %T of
// an interface names the session's type.
func TestScreenErrorsAndSpreadOperands(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 40)
	run(s, `import ("errors"; "fmt")`)
	run(s, `type E struct{ msg string }; func (e E) Error() string { return "E:" + e.msg }`)
	run(s, `type PE struct{ N int }; func (e *PE) Error() string { return fmt.Sprint("PE", e.N) }`)
	run(s, `type Wrap struct{ Op string; Err error }; func (w *Wrap) Error() string { return w.Op + ": " + w.Err.Error() }`)
	run(s, `func (w *Wrap) Unwrap() error { return w.Err }`)
	run(s, `type Color int; func (c Color) String() string { return [...]string{"Red", "Green"}[c] }`)
	run(s, `func logf(format string, args ...any) { fmt.Printf("[log] "+format+"\n", args...) }`)
	run(s, `func check() error { return E{"failed"} }`)
	run(s, `var err error = fmt.Errorf("ctx: %w", &Wrap{"read", &PE{3}})`)
	run(s, `var pe *PE`)
	for _, tc := range []struct{ cell, want string }{
		{`logf("%v %d %s|%5v|", Color(1), Color(1), E{"x"}, Color(0))`, "[log] Green 1 E:x|  Red|"},
		{`check()`, "E:failed"},
		{`check().Error()`, `"E:failed"`},
		{`errors.As(err, &pe)`, "true"},
		{`pe.N`, "3"},
		{`errors.Unwrap(err)`, "read: PE3"},
		{`errors.Is(err, error(pe))`, "true"},
		{`[]any{Color(0), E{"y"}, any(Color(1))}`, "[Red E:y Green]"},
		{`fmt.Printf("%T %T\n", any(Color(1)), error(&PE{1}))`, "main.Color *main.PE"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
