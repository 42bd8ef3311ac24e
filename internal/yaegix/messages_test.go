package yaegix

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestSplitPosOfRealErrors: yaegi's compile errors, its parse errors and
// the errors in a source package all carry a position SplitPos reads.
func TestSplitPosOfRealErrors(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "src", "broken")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "broken.go"), []byte("package broken\n\nfunc F() { _ = nope }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		srcs      []string
		line, col int
		msg       string
	}{
		// A statement's first line follows yaegi's "package main; func main() {".
		{"statement-on-first-line", []string{"_ = undefinedThing"}, 1, 32, "undefined: undefinedThing"},
		{"statement-on-second-line", []string{"\n_ = undefinedThing"}, 2, 5, "undefined: undefinedThing"},
		{"declaration", []string{"func g() { _ = undefinedThing }"}, 1, 29, "undefined: undefinedThing"},
		{"parse-error", []string{"import \"fmt\"\nfmt.Println(1)"}, 2, 1, "expected declaration, found fmt"},
		{"reimport", []string{`import "fmt"`, `import "fmt"`}, 1, 21, "fmt/_.go redeclared in this block"},
		// The error of a source package names the file by its host path.
		{"source-package", []string{`import "broken"`}, 1, 21, `import "broken" error: ` + filepath.Join(pkg, "broken.go") + ":3:16: undefined: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yi := newInterp(t, nil, nil, func(o *interp.Options) { o.GoPath = dir })
			rec, err := evalAll(yi, tt.srcs...)
			if err == nil || rec != nil {
				t.Fatalf("err %v, interpreter panic %v; want an error", err, rec)
			}
			line, col, msg, ok := SplitPos(err.Error())
			if !ok || line != tt.line || col != tt.col || msg != tt.msg {
				t.Errorf("SplitPos(%q) = %d, %d, %q, %v; want %d, %d, %q, true", err, line, col, msg, ok, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// TestPanicFrameOfRealStderr: a panic writes one "L:C: panic: F(...)" line
// per frame it unwinds, each in one Write, the panic's own first.
func TestPanicFrameOfRealStderr(t *testing.T) {
	var stderr writes
	yi := newInterp(t, nil, &stderr)
	rec, err := evalAll(yi, "func f() {\n\tpanic(\"boom\")\n}", "\nf()")
	var p interp.Panic
	if !errors.As(err, &p) || rec != nil {
		t.Fatalf("err %v, interpreter panic %v; want an interp.Panic", err, rec)
	}
	got := stderr.all()
	want := []string{"2:2: panic: main.f(...)\n", "2:1: panic: main(...)\n"}
	if len(got) != len(want) {
		t.Fatalf("stderr writes %q; want %q", got, want)
	}
	for i, w := range got {
		if w != want[i] {
			t.Errorf("write %d = %q; want %q", i, w, want[i])
		}
	}
	if line, col, ok := PanicFrame([]byte(got[0])); !ok || line != 2 || col != 2 {
		t.Errorf("PanicFrame(%q) = %d, %d, %v; want 2, 2, true", got[0], line, col, ok)
	}
	for _, s := range []string{"panic: boom\n", "2:2: panic: main.f\n", "x 2:2: panic: main.f(...)\n"} {
		if _, _, ok := PanicFrame([]byte(s)); ok {
			t.Errorf("PanicFrame(%q) ok; want the code's own output passed on", s)
		}
	}
}

// TestExitCodeOfRealExit: os.Exit in a restricted interpreter panics with
// ExitPanic's text, which ExitCode reads back.
func TestExitCodeOfRealExit(t *testing.T) {
	yi := newInterp(t, nil, nil)
	rec, err := evalAll(yi, `import "os"`, "os.Exit(3)")
	var p interp.Panic
	if !errors.As(err, &p) || rec != nil {
		t.Fatalf("err %v, interpreter panic %v; want an interp.Panic", err, rec)
	}
	if p.Value != ExitPanic(3) {
		t.Errorf("panic value %#v; want %#v", p.Value, ExitPanic(3))
	}
	if code, ok := ExitCode(p.Value); !ok || code != 3 {
		t.Errorf("ExitCode(%#v) = %d, %v; want 3, true", p.Value, code, ok)
	}
	for _, v := range []any{"os.Exit(x)", "os.Exit(3", "exit(3)", 3} {
		if _, ok := ExitCode(v); ok {
			t.Errorf("ExitCode(%#v) ok; want not an exit", v)
		}
	}
}
