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

// A value of an interpreted type converted to error reaches native code as
// yaegi's _error wrapper: IfaceWrapped gives what it holds, a pointer as
// it is and a struct as its last field only (getConcreteValue), which is
// why errors.As cannot find a struct error with a value receiver.
func TestIfaceWrappedError(t *testing.T) {
	i := interp.New(interp.Options{})
	if _, err := i.Eval("type P struct{ N int }\nfunc (p *P) Error() string { return \"p\" }\ntype S struct{ A, B int }\nfunc (s S) Error() string { return \"s\" }\nfunc errs() []error { var p error = &P{5}; var s error = (S{1, 2}); return []error{p, s} }"); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("errs()")
	if err != nil {
		t.Fatal(err)
	}
	errs := v.Interface().([]error)
	inner, ok := yaegix.IfaceWrapped(reflect.ValueOf(errs[0]))
	if !ok || inner.Kind() != reflect.Pointer || fmt.Sprint(inner.Elem().Interface()) != "{5}" {
		t.Fatalf("&P{5} as error: IfaceWrapped = %v, %v; want the pointer", inner, ok)
	}
	inner, ok = yaegix.IfaceWrapped(reflect.ValueOf(errs[1]))
	if !ok || fmt.Sprint(inner.Interface()) != "2" {
		t.Errorf("S{1, 2} as error: IfaceWrapped = %v, %v; want its last field (yaegi's loss)", inner, ok)
	}
	if _, ok := yaegix.IfaceWrapped(reflect.ValueOf(fmt.Errorf("x"))); ok {
		t.Errorf("a compiled error taken for a wrapper")
	}
}

// A struct whose one field is the value survives the wrapper whole (the
// front end's ʟkeep box, lower/keepvalue.go), and IfaceMethods names the
// interface's methods from the wrapper.
func TestIfaceWrappedKeepsOneFieldBox(t *testing.T) {
	i := interp.New(interp.Options{})
	if _, err := i.Eval("type S struct{ A, B int }\nfunc (s S) Error() string { return \"s\" }\ntype K struct{ S }\nfunc keep() error { var e error = (K{S{1, 2}}); return e }"); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("keep()")
	if err != nil {
		t.Fatal(err)
	}
	w := reflect.ValueOf(v.Interface())
	inner, ok := yaegix.IfaceWrapped(w)
	if !ok || fmt.Sprint(inner.Interface()) != "{1 2}" {
		t.Errorf("K{S{1, 2}} as error: IfaceWrapped = %v, %v; want S whole", inner, ok)
	}
	if names, ok := yaegix.IfaceMethods(w); !ok || fmt.Sprint(names) != "[Error]" {
		t.Errorf("IfaceMethods = %v, %v; want [Error]", names, ok)
	}
	if _, ok := yaegix.IfaceMethods(reflect.ValueOf(fmt.Errorf("x"))); ok {
		t.Errorf("IfaceMethods of a compiled error: ok")
	}
}
