package yaegix

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func TestSplitKey(t *testing.T) {
	tests := []struct{ key, path, name string }{
		{"fmt/fmt", "fmt", "fmt"},
		{"math/rand/v2/rand", "math/rand/v2", "rand"},
		{"example.com/go-foo/foo", "example.com/go-foo", "foo"},
	}
	for _, tt := range tests {
		if path, name, ok := SplitKey(tt.key); !ok || path != tt.path || name != tt.name {
			t.Errorf("SplitKey(%q) = %q, %q, %v; want %q, %q, true", tt.key, path, name, ok, tt.path, tt.name)
		}
	}
	for _, key := range []string{WrappersKey, "fmt", "/fmt"} {
		if _, _, ok := SplitKey(key); ok {
			t.Errorf("SplitKey(%q) ok; want no package", key)
		}
	}
}

// TestSymbolTableConventions: the standard tables are keyed as SplitKey
// reads them, with the wrappers under WrappersKey, and interp.Use names a
// package after its key, not its path.
func TestSymbolTableConventions(t *testing.T) {
	if _, ok := stdlib.Symbols[WrappersKey]; !ok {
		t.Errorf("stdlib.Symbols has no %q entry", WrappersKey)
	}
	for key := range stdlib.Symbols {
		if _, _, ok := SplitKey(key); !ok && key != WrappersKey {
			t.Errorf("stdlib.Symbols key %q names no package", key)
		}
	}
	fmtSyms := stdlib.Symbols["fmt/fmt"]
	if _, ok := fmtSyms["_Stringer"]; !ok || !IsWrapperName("_Stringer") || IsWrapperName("Stringer") {
		t.Error("fmt's table has no _Stringer wrapper, or IsWrapperName misreads it")
	}
	yi := newInterp(t, nil, nil)
	if err := yi.Use(interp.Exports{"example.com/go-foo/bar": {"X": reflect.ValueOf(7)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "example.com/go-foo"`); err != nil {
		t.Fatal(err)
	}
	if v, err := yi.Eval("bar.X"); err != nil || v.Int() != 7 {
		t.Errorf("bar.X = %v, %v; want 7 (the package named by its key)", v, err)
	}
}

// TestInterfaceWrapper: a value of an interpreted type converted to an
// interface of package P reaches Go wrapped in P's "_"+Name entry (fmt's
// _Stringer for fmt.Stringer, whatever table offers the interface), which
// has the interpreted method: what the sandbox's showMethods relies on.
func TestInterfaceWrapper(t *testing.T) {
	yi := newInterp(t, nil, nil)
	err := yi.Use(interp.Exports{"show/show": {
		"Stringer": reflect.ValueOf((*fmt.Stringer)(nil)),
		"Tuple":    reflect.ValueOf(func(v ...any) []any { return v }),
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = yi.Eval(`import "show"`)
	if err == nil {
		_, err = yi.Eval(`type C int; func (c C) String() string { return "C" + string(rune('0'+c)) }`)
	}
	if err != nil {
		t.Fatal(err)
	}
	// As the sandbox shows a value: converted to the interface, handed to Go.
	v, err := yi.Eval("show.Tuple(func() show.Stringer { return C(3) }(), C(4))")
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := v.Interface().([]any)
	if len(vals) != 2 {
		t.Fatalf("Tuple gave %#v; want two values", v.Interface())
	}
	want := reflect.TypeOf(stdlib.Symbols["fmt/fmt"]["_Stringer"].Interface()).Elem()
	if got := reflect.TypeOf(vals[0]); got != want {
		t.Errorf("C(3) as a show.Stringer reached Go as %v; want %v", got, want)
	}
	if s, ok := vals[0].(fmt.Stringer); !ok || s.String() != "C3" {
		t.Errorf("C(3) as a show.Stringer reached Go as %#v; want a Stringer of C3", vals[0])
	}
	// Unconverted, the value has no methods in Go: hence the conversion.
	if _, ok := vals[1].(fmt.Stringer); ok {
		t.Errorf("C(4) reached Go as a Stringer (%#v): yaegi now keeps methods, showMethods may go", vals[1])
	}
}

// TestSpecialStdio: with SpecialStdio set when the interpreter is made,
// the code's os.Stdout is the interpreter's Stdout.
func TestSpecialStdio(t *testing.T) {
	name, _, _ := strings.Cut(SpecialStdio, "=")
	t.Setenv(name, "")
	SetSpecialStdio()
	if got := os.Getenv(name) + ""; name+"="+got != SpecialStdio {
		t.Fatalf("%s=%s after SetSpecialStdio; want %s", name, got, SpecialStdio)
	}
	var out bytes.Buffer
	yi := newInterp(t, &out, nil)
	if rec, err := evalAll(yi, `import "os"`, `import "fmt"`, `fmt.Fprint(os.Stdout, "to the interpreter")`); err != nil || rec != nil {
		t.Fatal(err, rec)
	}
	if out.String() != "to the interpreter" {
		t.Errorf("interpreter's Stdout got %q; want the code's os.Stdout", out.String())
	}
}
