package sandbox

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// Go semantics that must hold across cells at the prompt, each once seen
// broken by a user (issue 16).
func TestGoSemanticsAcrossCells(t *testing.T) {
	tests := []struct {
		name   string
		cells  []string
		stdout string
		stderr string
	}{
		{
			name: "loop-variable-per-iteration-after-range-over-int",
			cells: []string{`import "fmt"`, "for i := range 3 { _ = i }",
				"var fs []func()\nfor i := 0; i < 3; i++ { fs = append(fs, func() { fmt.Print(i) }) }\nfor _, f := range fs { f() }\nfmt.Println()"},
			stdout: "012\n",
		},
		{
			name:   "loop-header-variable-is-not-a-global",
			cells:  []string{"n := 0\nfor i := 0; i < 3; i++ { n += i }", "i := 7\nn + i"},
			stdout: "10\n",
		},
		{
			name:   "println-to-stderr-in-runtime-format",
			cells:  []string{`println("a", 1, 2.5, true)`, `print("x", 3, "\n")`},
			stderr: "a 1 2.5 true\nx3\n",
		},
		{
			name:   "select-into-existing-variables",
			cells:  []string{"c := make(chan int, 1)\nc <- 4\nvar x int\nvar ok bool", "select {\ncase x, ok = <-c:\n}\nx"},
			stdout: "4\n",
		},
		{
			name:   "range-over-func-closing-on-the-body-line",
			cells:  []string{`import "strings"`, "n := 0\nfor l := range strings.Lines(\"a\\nbb\\n\") { n += len(l) }\nn"},
			stdout: "5\n",
		},
		{
			name: "string-methods-at-any-depth",
			cells: []string{`import "fmt"`, "type Color int\nconst (Red Color = iota; Green; Blue)\nfunc (c Color) String() string { return [...]string{\"R\", \"G\", \"B\"}[c] }",
				"fmt.Println([]Color{Red, Blue}, map[string]Color{\"x\": Green}, Green+1)",
				"type Shape interface{ Area() int }\ntype Sq struct{ s int }\nfunc (q Sq) Area() int { return q.s * q.s }\nfunc (q Sq) String() string { return \"square\" }",
				"var sh Shape = Sq{3}\nfmt.Println(sh)"},
			stdout: "[R B] map[x:G] B\nsquare\n",
		},
		{
			name: "a-type-declared-again-replaces-the-old-one",
			// The cells after it have no word that would have them lowered.
			cells:  []string{`import "fmt"`, "type P int", "const x P = 1", "type P string", `var y P = "s"`, "fmt.Println(y, x)"},
			stdout: "s 1\n",
		},
		{
			name: "flag-sees-no-arguments",
			// The host process's command line (here the test binary's, with
			// its -test.* flags) is not the session's.
			cells:  []string{`import ("flag"; "fmt")`, "n := flag.Int(\"n\", 3, \"\")\nflag.Parse()\nfmt.Println(flag.Args(), flag.NArg(), *n, flag.Lookup(\"test.run\") == nil)"},
			stdout: "[] 0 3 true\n",
		},
		{
			name:   "pure-net-packages-allowed",
			cells:  []string{`import ("fmt"; "net/url"; "net/netip")`, "u, _ := url.Parse(\"https://a.b/c?d=1\")\nfmt.Println(u.Host, u.Query().Get(\"d\"), netip.MustParseAddr(\"10.0.0.1\").Is4())"},
			stdout: "a.b 1 true\n",
		},
		{
			name:   "method-expression-call",
			cells:  []string{"type T int\nfunc (t T) Add(n int) T { return t + T(n) }", "T.Add(2, 3)"},
			stdout: "5\n",
		},
		{
			name:   "address-of-element-through-array-pointer",
			cells:  []string{"func f() int { s := make([]int, 4)\np := (*[4]int)(s)\nx := &p[1]\n*x = 3\nif &p[2] != &s[2] { return -1 }\nreturn s[1] }", "f()"},
			stdout: "3\n",
		},
		{
			name: "assign-to-imported-package-variable",
			// In a function: a cell without one of lowerTriggers goes to
			// yaegi as typed. Inside one, yaegi read the value the variable
			// had when the function was compiled.
			cells: []string{`import "runtime"`, "func bump(old int) int { runtime.MemProfileRate = old + 1\nruntime.MemProfileRate += 2\nn := runtime.MemProfileRate - old\nruntime.MemProfileRate = old\nreturn n }",
				"bump(runtime.MemProfileRate)"},
			stdout: "3\n",
		},
		{
			name:   "embedded-generic-field-by-name",
			cells:  []string{"type B[T any] struct{ x T }\ntype A struct{ *B[string]; n int }", "a := A{B: &B[string]{\"q\"}, n: 1}\na.B.x = a.x + \"r\"\na.x"},
			stdout: "\"qr\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			in, err := NewInterp(Options{Dir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			for _, c := range tt.cells {
				if err := in.Eval(context.Background(), c, true); err != nil {
					t.Fatalf("Eval(%q): %v", c, err)
				}
			}
			if got := stdout.String(); got != tt.stdout {
				t.Errorf("stdout %q; want %q", got, tt.stdout)
			}
			if got := stderr.String(); got != tt.stderr {
				t.Errorf("stderr %q; want %q", got, tt.stderr)
			}
		})
	}
}

// os.Exit and log.Fatal end the program: a deferred recover does not
// cancel them (in a session, os.Exit is a panic of yaegi's).
func TestExitIsNotRecovered(t *testing.T) {
	tests := []struct {
		name, cell string
		code       int
		stderr     string
	}{
		{"os-exit", "import \"os\"\nfunc f() { defer func() { recover() }(); os.Exit(3) }\nf()", 3, ""},
		{"log-fatal", "import \"log\"\nlog.SetFlags(0)\nfunc f() { defer func() { recover() }(); log.Fatal(\"bye\") }\nf()", 1, "bye\n"},
		{"log-fatalf", "import \"log\"\nlog.SetFlags(0)\nfunc f() { defer func() { _ = recover() }(); log.Fatalf(\"n=%d\", 2) }\nf()", 1, "n=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			in, err := NewInterp(Options{Dir: t.TempDir(), Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			err = in.Eval(context.Background(), tt.cell, false)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != tt.code {
				t.Fatalf("err = %v; want exit %d", err, tt.code)
			}
			if !strings.HasSuffix(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q; want it to end with %q", stderr.String(), tt.stderr)
			}
		})
	}
}
