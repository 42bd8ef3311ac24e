package yaegix

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestUseSharedKeepsTables: a table yaegi only reads is the interpreter's
// as it was given (the same map), one yaegi writes to (fmt) is copied and
// bound to the interpreter's stdout, a package in two tables gets both's
// symbols, and code sees all of them.
func TestUseSharedKeepsTables(t *testing.T) {
	var out bytes.Buffer
	yi := interp.New(interp.Options{Stdout: &out})
	extra := interp.Exports{"strings/strings": {"Shout": reflect.ValueOf(func(s string) string { return strings.ToUpper(s) + "!" })}}
	if err := UseShared(yi, stdlib.Symbols, extra); err != nil {
		t.Fatal(err)
	}
	same := func(path string) bool {
		own := yi.Symbols(path)[path]
		return reflect.ValueOf(own).UnsafePointer() == reflect.ValueOf(stdlib.Symbols[path+"/"+pathBase(path)]).UnsafePointer()
	}
	if !same("bytes") || !same("encoding/json") {
		t.Errorf("tables of bytes and encoding/json were copied; want them shared")
	}
	for _, p := range []string{"fmt", "os", "strings"} {
		if same(p) {
			t.Errorf("table of %s is shared; want the interpreter's copy", p)
		}
	}
	if _, ok := stdlib.Symbols["strings/strings"]["Shout"]; ok {
		t.Fatal("UseShared wrote into the table it was given")
	}
	_, err := evalAll(yi, `import ("bytes"; "fmt"; "strings")`,
		`fmt.Println(strings.Shout("hi"), strings.ToLower("A"), bytes.Equal(nil, nil))`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "HI! a true\n"; got != want {
		t.Errorf("output %q; want %q", got, want)
	}
}

// TestUseSharedAmongInterpreters: two interpreters given the same tables
// both run code from them (no write to the shared maps; -race checks).
func TestUseSharedAmongInterpreters(t *testing.T) {
	done := make(chan string, 2)
	for range 2 {
		go func() {
			var out bytes.Buffer
			yi := interp.New(interp.Options{Stdout: &out})
			if err := UseShared(yi, stdlib.Symbols); err != nil {
				done <- err.Error()
				return
			}
			_, err := evalAll(yi, `import ("fmt"; "strconv")`, `fmt.Print(strconv.Itoa(42))`)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- out.String()
		}()
	}
	for range 2 {
		if got := <-done; got != "42" {
			t.Errorf("got %q; want 42", got)
		}
	}
}

func pathBase(path string) string { return path[strings.LastIndex(path, "/")+1:] }
