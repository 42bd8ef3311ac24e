package sshd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// What the prompt shows (issue 14, point 2), on tmux's screen, with the
// session in a worker process: the worker formats the values and sends
// the text.
func TestScreenShownValuesThroughWorker(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 80, 30)
	run(s, `import ("encoding/json"; "fmt"; "maps"; "strconv")`)
	run(s, `type P struct{ X, Y int }; type Node struct{ V int; Next *Node }`)
	run(s, `type Temp float64; func (t Temp) String() string { return fmt.Sprintf("%.1f°C", float64(t)) }`)
	for _, tc := range []struct{ cell, want string }{
		{"P{1, 2}", "{X:1 Y:2}"},
		{"&Node{1, &Node{2, nil}}", "&{V:1 Next:&{V:2 Next:<nil>}}"},
		{"Temp(21.5)", "21.5°C"},
		{`[]byte("hi")`, `"hi"`},
		{`strconv.Atoi("42")`, "42"},
		{`strconv.Atoi("x")`, `strconv.Atoi: parsing "x": invalid syntax`},
		{"strconv.Itoa", "func(int) string"},
		{`maps.Keys(map[string]int{"a": 1})`, "iter.Seq[string]"}, // a named func type by its name
		{`json.Unmarshal([]byte("1"), new(int)); 5`, "5"},         // a nil error mid-cell shows nothing
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
	// json.MarshalIndent's []byte is its JSON text.
	s.Type(`json.MarshalIndent(P{1, 2}, "", " ")`)
	s.Keys("Enter")
	s.WaitTail(`go> json.MarshalIndent(P{1, 2}, "", " ")`, `"{\n \"X\": 1,\n \"Y\": 2\n}"`, "go>")
	// A long value over several lines.
	s.Type(`[]P{{100000, 200000}, {300000, 400000}, {500000, 600000}, {700000, 800000}}`)
	s.Keys("Enter")
	s.WaitTail("[", "  {X:100000 Y:200000}", "  {X:300000 Y:400000}", "  {X:500000 Y:600000}", "  {X:700000 Y:800000}", "]", "go>")
}

// :type, :doc, :print and :write at the prompt.
func TestScreenInspectCommands(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, id := openScreen(t, h, 100, 40)
	run(s, `import "strconv"`)
	run(s, "type P struct{ X int }")
	run(s, "func f() (P, error) { return P{1}, nil }")
	run(s, "n, _ := strconv.Atoi(\"3\")")
	run(s, "func f() (P, error) { return P{n}, nil }") // replaces the first f
	for _, tc := range []struct{ cmd, want string }{
		{":type f()", "(P, error)"},
		{":type strconv.Quote", "func(s string) string"},
		{":type n + 1", "int"},
		{":type nosuch", "error: type: 1:1: undefined: nosuch"},
	} {
		s.Type(tc.cmd)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cmd, tc.want, "go>")
	}
	rows := run(s, ":doc strings.Cut")
	if got := strings.Join(rows, "\n"); !strings.Contains(got, "func Cut(s, sep string) (before, after string, found bool)") {
		t.Errorf(":doc strings.Cut shows:\n%s", got)
	}
	run(s, ":write prog.go")
	prog, err := os.ReadFile(filepath.Join(h.Root, id, "files", "prog.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := `// The session's journal as one program (replhost :print).
// Variables the cells defined with := are package variables here, set in main.

package main

import (
	"strconv"
)

type P struct{ X int }

func f() (P, error) { return P{n}, nil }

var (
	n int
)

func main() {
	n, _ = strconv.Atoi("3")
}
`
	if string(prog) != want {
		t.Errorf(":write wrote:\n%s\nwant:\n%s", prog, want)
	}
	s.Type(":write ../escape.go")
	s.Keys("Enter")
	s.WaitTail("go> :write ../escape.go", "error: write ../escape.go: the name must stay inside the session's files/", "go>")
	if _, err := os.Stat(filepath.Join(h.Root, id, "escape.go")); !os.IsNotExist(err) {
		t.Errorf("escape.go outside files/: %v", err)
	}
}

// The inspecting commands work in a script too (stdin without a PTY).
func TestInspectCommandsInScript(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	script := "type P struct{ X int }\np := &P{1}\n:type p\n:type p.X > 0\np\n:print\n"
	r := h.Run(t, "alice", "", script)
	// A script echoes no values (docs/SPEC.md), but the commands print.
	want := "*P\nuntyped bool\n" + `// The session's journal as one program (replhost :print).
// Variables the cells defined with := are package variables here, set in main.

package main

type P struct{ X int }

var (
	p *P
)

func main() {
	p = &P{1}
	_ = p
}
`
	if r.Stdout != want || r.Status != 0 {
		t.Errorf("script: status %d, stdout:\n%s\nstderr: %s\nwant stdout:\n%s", r.Status, r.Stdout, r.Stderr, want)
	}
}
