package sandbox

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func newTestInterp(tb testing.TB) (*Interp, *bytes.Buffer) {
	tb.Helper()
	var out bytes.Buffer
	in, err := NewInterp(Options{Dir: tb.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close() })
	return in, &out
}

func TestEvalShowsValues(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		want  string
	}{
		{"expression", []string{"1+2"}, "3\n"},
		{"import-then-call-on-one-line", []string{`import "fmt"; fmt.Println(1)`}, "1\n"},
		{"println-shows-only-its-output", []string{`import "fmt"`, `fmt.Println("hi")`}, "hi\n"},
		{"type-then-literal", []string{"type P struct{X int}; P{1}"}, "{X:1}\n"},
		{"several-results", []string{`func two() (int, string) { return 1, "a" }`, "two()"}, "1 \"a\"\n"},
		{"statement-prints-nothing", []string{"x := 41", "x++", "x"}, "42\n"},
		{"no-result-call", []string{"func f() {}", "f()"}, ""},
		{"multi-line-function", []string{"func add(a, b int) int {\n\treturn a + b\n}\nadd(2, 3)"}, "5\n"},
		{"decls-refer-forward", []string{"func a() int { return b() }\nfunc b() int { return 7 }\na()"}, "7\n"},
		{"classic-for", []string{"s := 0; for i := 0; i < 4; i++ { s += i }; s"}, "6\n"},
		{"if-with-init", []string{"y := 0; if x := 3; x > 2 { y = 10 } else { y = 20 }; y"}, "10\n"},
		{"comma-ok-in-header", []string{"m := map[string]int{\"a\": 1}\nr := 0\nif v, ok := m[\"a\"]; ok { r = v }\nr"}, "1\n"},
		{"range-over-int", []string{"n := 0\nfor i := range 5 { n += i }\nn"}, "10\n"},
		{"min-max", []string{"min(3, 1, 2) + max(4, 9)"}, "10\n"},
		{"re-import", []string{`import "strings"`, `import "strings"; import "fmt"; fmt.Println(strings.ToUpper("a"))`, "import (\n\t\"fmt\"\n\t\"strings\"\n)\nstrings.Repeat(\"b\", 2)"}, "A\n\"bb\"\n"},
		{"method-decl", []string{"type T int\nfunc (t T) Double() T { return t * 2 }\nT(4).Double()"}, "8\n"},
		{"func-literal-call", []string{"func(x int) int { return x * 3 }(3)"}, "9\n"},
		{"os-stdout-is-the-sessions", []string{`import "os"; import "fmt"; fmt.Fprintln(os.Stdout, "to session")`}, "to session\n"},
		{"values-in-order-with-output", []string{`import "fmt"`, `1; fmt.Println("a"); 2`}, "1\na\n2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out := newTestInterp(t)
			for _, c := range tt.cells {
				if err := in.Eval(context.Background(), c, true); err != nil {
					t.Fatalf("Eval(%q): %v", c, err)
				}
			}
			if got := out.String(); got != tt.want {
				t.Errorf("output %q; want %q", got, tt.want)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want string // the error text
	}{
		{"undefined-at-user-position", "x := 1\n\n   y + 1", "3:4: undefined: y"},
		{"syntax-error", "x := 1\ny := 1 +* ", "expected operand"},
		{"denied-import", `import "os/exec"`, `1:8: package os/exec is not allowed`},
		{"denied-import-after-code", "x := 1\nimport \"syscall\"", `2:8: package syscall is not allowed`},
		{"no-start-process", "import \"os\"\nos.StartProcess(\"/bin/true\", nil, nil)", "has no symbol StartProcess"},
		{"denied-subpackage", `import "net/http"`, `package net/http is not allowed`},
		{"panic-with-position", `panic("boom")`, "1:1: panic: boom"},
		{"unsupported-syntax", "type T[P any] struct{ v P }; var _ = func() {}; for range T[int]{} {}", ""},
		{"binary-garbage", "\x00\x01\xff\xfe}}}", "illegal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := newTestInterp(t)
			err := in.Eval(context.Background(), tt.cell, true)
			var ev *EvalError
			if !errors.As(err, &ev) {
				t.Fatalf("err = %v (%T); want *EvalError", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q; want it to contain %q", err, tt.want)
			}
			// The session goes on.
			if err := in.Eval(context.Background(), "1", false); err != nil {
				t.Errorf("after the error: %v", err)
			}
		})
	}
}

func TestEvalOsExitEndsTheCell(t *testing.T) {
	in, _ := newTestInterp(t)
	err := in.Eval(context.Background(), "import \"os\"\nos.Exit(3)", true)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("err = %v; want ExitError 3", err)
	}
}

func TestEvalInterrupt(t *testing.T) {
	in, _ := newTestInterp(t)
	if err := in.Eval(context.Background(), "n := 5", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if err := in.Eval(ctx, "for {}", false); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	var out bytes.Buffer
	in.stdout = &out
	if err := in.Eval(context.Background(), "n", true); err != nil || out.String() != "5\n" {
		t.Errorf("after interrupt: %q, %v; want 5", out.String(), err)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	a, outA := newTestInterp(t)
	b, outB := newTestInterp(t)
	must := func(in *Interp, c string) {
		t.Helper()
		if err := in.Eval(context.Background(), c, true); err != nil {
			t.Fatalf("Eval(%q): %v", c, err)
		}
	}
	must(a, "func f() int { return 1 }; type T struct{ A int }; v := 10")
	must(b, `func f() int { return 2 }; type T struct{ B string }; T{"x"}`)
	must(a, "f(); T{5}")
	must(b, "f()")
	if err := b.Eval(context.Background(), "v", true); err == nil {
		t.Error("v leaked from session a into b")
	}
	if got, want := outA.String(), "1\n{A:5}\n"; got != want {
		t.Errorf("a: %q; want %q", got, want)
	}
	if got, want := outB.String(), "{B:x}\n2\n"; got != want {
		t.Errorf("b: %q; want %q", got, want)
	}
}

func TestComplete(t *testing.T) {
	in, _ := newTestInterp(t)
	if err := in.Eval(context.Background(), "import \"strings\"\nfunc myFunc() {}\nmyVar := 1", false); err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string]string{
		"my":          "myFunc myVar",
		"strings.ToU": "strings.ToUpper strings.ToUpperSpecial",
		"stri":        "string strings",
		"strc":        "strconv",
		`"encoding/j`: `"encoding/json`,
		`"os/e`:       "", // not allowed
	} {
		if got := strings.Join(in.Complete(word), " "); got != want {
			t.Errorf("Complete(%q) = %q; want %q", word, got, want)
		}
	}
}

// fmt sees String methods of the prompt's types through yaegi's interface
// map (the "." symbols), front end or not.
func TestStringMethodsReachFmt(t *testing.T) {
	var out bytes.Buffer
	in, err := NewInterp(Options{Dir: t.TempDir(), Stdout: &out, NoLowering: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cell := `import "fmt"; type Color int; func (c Color) String() string { return "red" }; fmt.Println(Color(0), "and", Color(1))`
	if err := in.Eval(context.Background(), cell, false); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "red and red\n" {
		t.Errorf("fmt.Println of the prompt's Stringers: %q; want red and red", got)
	}
}
