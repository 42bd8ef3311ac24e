package sshd_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// Two sessions at once, of one user and of two users, define the same names
// differently and each sees only its own.
func TestSessionsAreIsolated(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	a1 := h.Terminal(t, "alice", "")
	a2 := h.Terminal(t, "alice", "")
	b := h.Terminal(t, "bob", "")
	defs := map[*testhost.Term]string{
		a1: `func f() int { return 1 }; type T struct{ A int }; secret := "a1"`,
		a2: `func f() int { return 2 }; type T struct{ B string }`,
		b:  `func f() int { return 3 }; type T struct{ C, D int }`,
	}
	for term, def := range defs {
		term.Expect(`go> `)
		term.Send(def + "\r")
		term.Expect(`go> `)
	}
	checks := []struct {
		term *testhost.Term
		cell string
		want string
	}{
		{a1, "f()", "1"},
		{a2, "f()", "2"},
		{b, "f()", "3"},
		{a1, "T{A: 7}", "{A:7}"},
		{a2, `T{B: "x"}`, "{B:x}"},
		{b, "T{C: 1, D: 2}", "{C:1 D:2}"},
		{a1, "secret", `"a1"`},
	}
	for _, c := range checks {
		c.term.Send(c.cell + "\r")
		m := c.term.Expect(`\r\n(.*)\r\n.*go> `)
		if got := testhost.Clean(m[1]); got != c.want {
			t.Errorf("%s = %q; want %q", c.cell, got, c.want)
		}
	}
	for _, term := range []*testhost.Term{a2, b} {
		term.Send("secret\r")
		m := term.Expect(`\r\n(error: .*)\r\n`)
		if !strings.Contains(m[1], "undefined: secret") {
			t.Errorf("secret in another session: %q; want undefined", m[1])
		}
	}
}

func TestInteractiveBasics(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	term := h.Terminal(t, "alice", "")
	m := term.Expect(`session ([0-9a-f-]{36})`)
	id := m[1]
	term.Expect(`go> `)

	term.Send("1+2\r")
	term.Expect(`\r\n3\r\n`)
	term.Send("func add(a, b int) int {\r")
	term.Expect(`\.\.> `)
	term.Send("return a + b\r")
	term.Expect(`\.\.> `)
	term.Send("}\r")
	term.Expect(`go> `)
	term.Send("add(40, 2)\r")
	term.Expect(`\r\n42\r\n`)

	// Ctrl-C interrupts a running cell; the session goes on with its state.
	term.Send("for {}\r")
	term.Expect(`for \{\}\r\n`)
	term.Interrupt()
	term.Send("add(1, 1)\r")
	term.Expect(`\r\n2\r\n`)

	// Tab completes a package path, then a member.
	term.Send("import \"strc\t")
	term.Expect(`import "strconv`)
	term.Send("\"\r")
	term.Expect(`go> `)
	term.Send("strconv.Itoa(4\t")
	term.Send("2)\r")
	term.Expect(`\r\n"42"\r\n`)
	term.Send("strconv.Quot\t")
	term.Expect(`Quote`)
	term.Send("\x03") // clear the line
	term.Expect(`go> `)

	term.Send(":session\r")
	term.Expect(`session ` + id + `\r\ndirectory .*` + id + `\r\nuser alice\r\n`)
	term.Send(":quit\r")
	term.Expect(`session ` + id + ` ended`)
	if code := term.Wait(); code != 0 {
		t.Errorf("exit status %d after :quit; want 0", code)
	}
	if r := h.Run(t, "alice", "sessions", ""); strings.Contains(r.Stdout, id) {
		t.Errorf("session %s still listed after :quit: %q", id, r.Stdout)
	}
}

// Each bad input gets one error line and the session goes on.
func TestBadInputKeepsTheSession(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	term := h.Terminal(t, "alice", "")
	term.Expect(`go> `)
	term.Send("n := 7\r")
	term.Expect(`go> `)
	cases := []struct {
		name, input, want string
	}{
		{"syntax-error", "1 +* 2\r", `error: 1:\d+: `},
		{"unknown-meta-command", ":frobnicate\r", `error: unknown command :frobnicate`},
		{"import-os-exec", "import \"os/exec\"\r", `error: 1:8: package os/exec is not allowed`},
		{"panic", "panic(\"boom\")\r", `error: 1:1: panic: boom`},
		{"os-exit", "import \"os\"; os.Exit(3)\r", `error: os.Exit\(3\) called`},
		{"type-error", "var s string = 1\r", `error: 1:16: cannot`},
		{"binary-garbage", "\x01\x02\xff\xfe\x80}}}\r", `error: `},
		{"line-at-the-cell-limit", "x := \"" + strings.Repeat("a", 1<<20-64) + "\"; len(x)\r", `\r\n1048512\r\n`},
		{"line-over-the-cell-limit", "x := \"" + strings.Repeat("a", 1<<20) + "\"; len(x)\r", `error: input larger than the cell limit of 1 MiB; discarded`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			term.Send(c.input)
			term.Expect(c.want)
			term.Expect(`go> `)
			term.Send("n\r")
			term.Expect(`\r\n7\r\n`)
		})
	}
}

func TestScriptedMode(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	prog := "import \"fmt\"\nfunc sq(n int) int { return n * n }\nx := sq(6)\nfmt.Println(\"x =\", x)\nx + 1\n"
	r := h.Run(t, "alice", "", prog)
	if r.Stdout != "x = 36\n" || r.Status != 0 || r.Stderr != "" {
		t.Errorf("script: %+v; want only x = 36, status 0", r)
	}
	r = h.Run(t, "alice", "", "import \"fmt\"\nfmt.Println(\"before\")\nundefinedThing()\nfmt.Println(\"after\")\n")
	if r.Stdout != "before\n" || r.Status != 1 || !strings.HasPrefix(r.Stderr, "error: 3:1: undefined: undefinedThing") {
		t.Errorf("failing script: %+v; want before, status 1, error at 3:1", r)
	}
	r = h.Run(t, "alice", "", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"main ran\") }\n")
	if r.Stdout != "main ran\n" || r.Status != 0 {
		t.Errorf("whole program: %+v; want main ran once", r)
	}
	r = h.Run(t, "alice", "", "import \"os\"\nos.Exit(4)\n")
	if r.Status != 4 {
		t.Errorf("os.Exit(4) script: status %d; want 4", r.Status)
	}
	// A throwaway session leaves nothing behind.
	if r := h.Run(t, "alice", "sessions", ""); r.Stdout != "" {
		t.Errorf("scripts left sessions: %q", r.Stdout)
	}
}

func TestExecCommands(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	tests := []struct {
		name, cmd          string
		wantOut, wantErrRE string
		wantStatus         int
	}{
		{"eval-value", "eval 1+2", "3\n", "", 0},
		{"eval-raw-quotes", `eval import "fmt"; fmt.Println("hi there")`, "hi there\n", "", 0},
		{"eval-multi-line", "eval x := 2\ny := 3\nx * y", "6\n", "", 0},
		{"eval-error", "eval nope", "", `^error: 1:1: undefined: nope\n$`, 1},
		{"eval-no-code", "eval", "", `^error: usage: eval`, 2},
		{"unknown-command", "frobnicate", "", `^error: unknown command "frobnicate"`, 2},
		{"kill-unknown", "kill 00000000-0000-0000-0000-000000000000", "", `^error: no such session\n$`, 1},
		{"eval-unknown-session", "eval --session nope 1", "", `^error: no such session\n$`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Run(t, "alice", tt.cmd, "")
			if r.Stdout != tt.wantOut || r.Status != tt.wantStatus || !regexp.MustCompile(tt.wantErrRE).MatchString(r.Stderr) {
				t.Errorf("%q: got %+v; want stdout %q, stderr ~ %q, status %d", tt.cmd, r, tt.wantOut, tt.wantErrRE, tt.wantStatus)
			}
		})
	}

	r := h.Run(t, "alice", "new", "")
	id := strings.TrimSpace(r.Stdout)
	if r.Status != 0 || len(id) != 36 {
		t.Fatalf("new: %+v", r)
	}
	if r := h.Run(t, "alice", "eval --session "+id+" v := 40", ""); r.Status != 0 {
		t.Fatalf("eval in session: %+v", r)
	}
	if r := h.Run(t, "alice", "eval --session "+id+" v + 2", ""); r.Stdout != "42\n" {
		t.Errorf("state across eval --session: %+v; want 42", r)
	}
	if r := h.Run(t, "bob", "eval --session "+id+" v", ""); r.Stderr != "error: no such session\n" || r.Status == 0 {
		t.Errorf("bob used alice's session: %+v", r)
	}
	if r := h.Run(t, "alice", "sessions", ""); !regexp.MustCompile(`^` + id + ` detached \S+ \S+\n$`).MatchString(r.Stdout) {
		t.Errorf("sessions: %q", r.Stdout)
	}
	if r := h.Run(t, "alice", "kill "+id, ""); r.Status != 0 {
		t.Errorf("kill: %+v", r)
	}
	if r := h.Run(t, "alice", "eval --session "+id+" v", ""); r.Stderr != "error: no such session\n" {
		t.Errorf("killed session still answers: %+v", r)
	}
}
