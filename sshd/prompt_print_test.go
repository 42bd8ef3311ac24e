package sshd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// :write saves the session as a program that `go vet` accepts and `go
// build` builds, and the built program prints what the session printed:
// := variables used by later functions, defined and never used, assigned
// again, defined again with another type; an import never used; values the
// prompt showed. (A function
// declared again is the later one everywhere in the program, as after a
// restore.)
func TestPrintedProgramBuilds(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	h := testhost.Start(t, testhost.Options{Process: true})
	id := newSession(t, h, "alice")
	script := `import ("fmt"; "os"; "strconv"; "strings")
n, err := strconv.Atoi("41")
unused := "never read"
func next() int { return n + 1 }
fmt.Println(next(), err)
fi, _ := os.Stat(".")
type P struct{ X int }
func (p P) String() string { return "P" + strconv.Itoa(p.X) }
p := P{1}
p
p = P{2}
fmt.Println(p)
n, err = strconv.Atoi("x")
fmt.Println(n, err != nil)
s := strings.Repeat("ab", 2)
s
for i := 0; i < 2; i++ { fmt.Println(i, s) }
v := 1
fmt.Println(v + 1)
v := "v"
fmt.Println(v + "!")
fmt.Println(fi.Name() != "")
`
	for _, cell := range strings.Split(strings.TrimSpace(script), "\n") {
		mustEval(t, h, "alice", id, cell)
	}
	r := h.Run(t, "alice", "eval --session "+id+" :write prog.go", "")
	if r.Status != 0 {
		t.Fatalf(":write: %+v", r)
	}
	dir := filepath.Join(h.Root, id, "files")
	prog, err := os.ReadFile(filepath.Join(dir, "prog.go"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "prog.go"), prog, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s\nprogram:\n%s", strings.Join(args, " "), err, out, prog)
		}
		return string(out)
	}
	goCmd("vet", "prog.go")
	goCmd("build", "-o", "prog", "prog.go")
	out, err := exec.Command(filepath.Join(work, "prog")).CombinedOutput()
	if err != nil {
		t.Fatalf("the program: %v\n%s", err, out)
	}
	want := "42 <nil>\nP2\n0 true\n0 abab\n1 abab\n2\nv!\ntrue\n"
	if string(out) != want {
		t.Errorf("the program printed:\n%s\nwant (what the session printed):\n%s\nprogram:\n%s", out, want, prog)
	}
}
