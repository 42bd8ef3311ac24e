package yaegix_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/replhost/replhost/internal/yaegix"
)

// A value of an interpreted type with methods inside an []any reaches
// native code as yaegi's wrapper, and Unwrap gives what it holds; one
// without methods is stored plain.
func TestValueInterfaceLayout(t *testing.T) {
	i := interp.New(interp.Options{})
	if _, err := i.Eval("type C int\nfunc (c C) M() int { return 1 }\ntype P struct{ X int }"); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("[]any{C(7), P{8}}")
	if err != nil {
		t.Fatal(err)
	}
	xs := v.Interface().([]any)
	if rt := reflect.TypeOf(xs[0]); !yaegix.IsWrapped(rt) {
		t.Fatalf("C(7) in an []any is a %v, not yaegi's wrapper", rt)
	}
	if got := yaegix.Unwrap(reflect.ValueOf(xs[0])); fmt.Sprint(got) != "7" {
		t.Errorf("Unwrap: %v", got)
	}
	if rt := reflect.TypeOf(xs[1]); yaegix.IsWrapped(rt) || fmt.Sprint(xs[1]) != "{8}" {
		t.Errorf("P{8} in an []any is %v (%v); want it plain", xs[1], rt)
	}
}
