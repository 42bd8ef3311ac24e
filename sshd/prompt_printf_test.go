package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// A printf format computed by a call or an index, with spread operands,
// prints them by their methods and is evaluated once (yaegi's wrappers
// printed as {0xc000… {…}}), through a worker process; each line of want
// is what `go run` prints.
func TestComputedFormatsPrintSpreadOperandsByTheirMethods(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := `import ("fmt"; "strconv")
type Color int
func (c Color) String() string { return "C" + strconv.Itoa(int(c)) }
n := 0
formats := []string{"%v|%d\n", "%s!\n"}
next := func() string { n++; return formats[n-1] }
args := []any{Color(1), Color(2)}
fmt.Printf(next(), args...)
s := fmt.Sprintf(formats[n], args[1:]...)
fmt.Print(s, n, "\n")
`
	want := "C1|2\nC2!\n1\n"
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}

// The prompt shows a Sprintf of a computed format by the operands'
// methods (on tmux's screen, through a worker process).
func TestScreenShownComputedFormat(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	run(s, `import ("fmt"; "strings")`)
	run(s, `type Color int; func (c Color) String() string { return "Red" }`)
	run(s, "args := []any{Color(0)}")
	cell := `fmt.Sprintf(strings.Repeat("%v ", len(args)), args...)`
	s.Type(cell)
	s.Keys("Enter")
	s.WaitTail("go> "+cell, `"Red "`, "go>")
}
