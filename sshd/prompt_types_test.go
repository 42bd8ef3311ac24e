package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// %T of a value of the session's method-less non-struct types stored in
// an interface names its type, as Go does (yaegi printed `float64`),
// also in a helper declared before the type, through a worker process;
// each line of want is what `go run` prints.
func TestStoredMethodlessValuesKeepTheirType(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := `import "fmt"
func show(x any) string { return fmt.Sprintf("%T", x) }
type Celsius float64
type Names []string
var c any = Celsius(1)
var n any = Names{"a"}
fmt.Printf("%T %T %v %v\n", c, n, c, n)
fmt.Println(show(c), show([]any{Celsius(2)}[0]))
temp := Celsius(3)
var p any
p = &temp
fmt.Println(show(p), show(map[string]Celsius{"a": 1}), show([]Celsius{1}))
`
	want := `main.Celsius main.Names 1 [a]
main.Celsius main.Celsius
*main.Celsius map[string]main.Celsius []main.Celsius
`
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// The prompt shows %T of a stored method-less value by its type (on
// tmux's screen, through a worker process).
func TestScreenShownTypeOfAStoredValue(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	run(s, `import "fmt"`)
	run(s, "type Celsius float64")
	run(s, "var c any = Celsius(1)")
	for _, tc := range []struct{ cell, want string }{
		{`fmt.Sprintf("%T", c)`, `"main.Celsius"`},
		{`fmt.Sprintf("%T %v", []any{c, 2}, c)`, `"[]interface {} 1"`},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}

// An interface holding a method-less value of the session's types equals
// only a value of that type (yaegi compared the float64s), at the
// prompt, through a worker process.
func TestScreenComparedStoredValueByItsType(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	run(s, "type Celsius float64")
	run(s, "var a any = Celsius(2)")
	for _, tc := range []struct{ cell, want string }{
		{"a == any(2.0)", "false"},
		{"a == Celsius(2)", "true"},
		{"[]bool{a != 2.0, any(Celsius(1)) == 1.0}", "[true false]"},
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
