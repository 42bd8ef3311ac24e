package yaegix

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// outcome is what yaegi did with the last of a case's sources.
type outcome struct {
	err       string // the error's text, "" if none
	recovered any    // a panic of the interpreter itself (log.Panic)
	value     string // the last Eval's value, fmt.Sprint'd
	stdout    string
}

func run(tb testing.TB, srcs ...string) outcome {
	tb.Helper()
	var out bytes.Buffer
	yi := newInterp(tb, &out, nil)
	var o outcome
	for _, src := range srcs {
		func() {
			defer func() { o.recovered = recover() }()
			o.value = ""
			v, err := yi.Eval(src)
			if err != nil {
				o.err = err.Error()
				var p interp.Panic
				if errors.As(err, &p) {
					o.err = fmt.Sprint("panic: ", PanicValue(p.Value))
				}
			} else if v.IsValid() && v.CanInterface() {
				o.value = fmt.Sprint(v.Interface())
			}
		}()
		if o.err != "" || o.recovered != nil {
			break
		}
	}
	o.stdout = out.String()
	return o
}

// TestWorkedAroundBehaviours pins the behaviours of yaegi v0.16.1 that
// the sandbox and the front end (lower) work around. A case that fails
// after an upgrade means yaegi changed there: the workaround named may be
// obsolete, or wrong.
func TestWorkedAroundBehaviours(t *testing.T) {
	tests := []struct {
		name   string
		where  string // the workaround
		srcs   []string
		want   outcome
		output bool // compare stdout too
	}{
		{"declaration-then-statement", "sandbox/cell.go splitCell",
			[]string{"import \"fmt\"\nfmt.Println(1)"}, outcome{err: "_.go:2:1: expected declaration, found fmt"}, false},
		{"reimport", "sandbox/units.go dropReimports",
			[]string{`import "fmt"`, `import "fmt"`}, outcome{err: "1:21: fmt/_.go redeclared in this block"}, false},
		{"range-over-int", "lower/rangeint.go",
			[]string{"func f() {\n\tfor i := range 3 { _ = i }\n}"}, outcome{recovered: "nil type"}, false},
		{"top-level-comma-ok", "lower/yaegifix.go commaOK",
			[]string{"m := map[int]int{}; v, ok := m[1]; _, _ = v, ok"}, outcome{recovered: "nil type"}, false},
		{"comma-ok-in-top-level-block", "lower/yaegifix.go needsFuncScope",
			[]string{"m := map[int]int{}; if true { v, ok := m[1]; _, _ = v, ok }"}, outcome{err: "1:80: undefined: v"}, false},
		{"loop-variable-is-global", "lower/yaegifix.go definesInHeader",
			[]string{"for i := 0; i < 3; i++ {}", "i"}, outcome{value: "3"}, false},
		{"interface-method-expression", "lower/methodval.go",
			[]string{"type I interface{ M(int) int }", "type T struct{}", "func (T) M(x int) int { return x }", "I.M(T{}, 1)"},
			outcome{err: "1:32: cannot use type main.T as type int"}, false},
		{"select-assign", "lower/selectshift.go",
			[]string{"c := make(chan int, 1); c <- 1; x := 0; select { case x = <-c: }; _ = x"}, outcome{err: "panic: reflect.Select: invalid Dir"}, false},
		{"no-min", "lower/builtins.go",
			[]string{"_ = min(1, 2)"}, outcome{err: "1:32: undefined: min"}, false},
		{"no-clear", "lower/builtins.go",
			[]string{"clear(map[int]int{})"}, outcome{err: "1:28: undefined: clear"}, false},
		{"println-to-stdout", "lower/runtimeprint.go",
			[]string{`println("a", 1)`}, outcome{stdout: "a 1\n"}, true},
		{"log-fatal-panics", "lower/exit.go Exiting",
			[]string{`import "log"`, `log.Fatal("x")`}, outcome{err: "panic: x"}, false},
		// A test binary has parsed its flags: the code sees the process's.
		{"flag-functions-are-the-processes", "sandbox/flagset.go withFlagSet",
			[]string{`import "flag"`, "flag.Parsed()"}, outcome{value: "true"}, false},
		{"main-runs-after-its-cell-and-later-ones", "repl/script.go RunScript",
			[]string{`func main() { println("main ran") }`, "1"}, outcome{value: "1", stdout: "main ran\nmain ran\n"}, true},
		{"top-level-func-literal-reruns", "yaegix.StmtText, ParseStmts (sandbox/interp.go evalUnit); lower/lower.go (wrapped statements are named functions)",
			[]string{`func() { println("ran") }()`, "1"}, outcome{value: "1", stdout: "ran\nran\n"}, true},
		{"top-level-defer-reruns", "lower (cellDefers)",
			[]string{"defer println(1)", "2", "3"}, outcome{value: "3", stdout: "1\n1\n1\n"}, true},
	}
	// yaegi's own panics (log.Panic) also print to the process's standard
	// logger: in inproc mode, the host's stderr.
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logged.Reset()
			got := run(t, tt.srcs...)
			if !tt.output {
				got.stdout = ""
			}
			if got != tt.want {
				t.Errorf("yaegi %s gave %+v; want %+v (worked around in %s: check it still needs to be)", Version, got, tt.want, tt.where)
			}
			if msg, ok := tt.want.recovered.(string); ok && !strings.HasSuffix(logged.String(), " "+msg+"\n") {
				t.Errorf("the standard logger got %q; want yaegi's %q", logged.String(), msg)
			}
		})
	}
}

// TestStatementWrapperColumn: yaegi puts "package main; func main() {"
// before a statement, on its first line, so the sandbox keeps the user's
// code off that line (evalUnit).
func TestStatementWrapperColumn(t *testing.T) {
	got := run(t, "_ = nope")
	const prefix = "package main; func main() {"
	if want := fmt.Sprintf("1:%d: undefined: nope", len(prefix)+5); got.err != want {
		t.Errorf("error %q; want %q", got.err, want)
	}
	if got := run(t, "\n_ = nope"); !strings.HasPrefix(got.err, "2:5: ") {
		t.Errorf("error on line 2 %q; want the user's column 5", got.err)
	}
}
