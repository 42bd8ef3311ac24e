package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// %+v of a struct of the session held in an interface names its Go fields
// (yaegi's type has Xx for x), in a session that declares no method,
// through a worker process; each line of want is what `go run` prints.
func TestPlusVNamesFieldsBehindInterface(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := `import "fmt"
type P struct{ x, y int }
type Celsius float64
type W struct{ c Celsius }
var a any = P{1, 2}
fmt.Printf("%+v\n", a)
p := P{3, 4}
fmt.Printf("%+v %+v\n", []any{p}, any(&p))
var b any = W{2}
fmt.Printf("%+v %v %#v\n", b, b, a)
`
	want := `{x:1 y:2}
[{x:3 y:4}] &{x:3 y:4}
{c:2} {2} main.P{x:1, y:2}
`
	r := h.Run(t, "alice", "", script)
	if r.Status != 0 || r.Stdout != want {
		t.Errorf("status %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Status, r.Stderr, r.Stdout, want)
	}
}
