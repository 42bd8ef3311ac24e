package yaegix

import (
	"errors"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestRuntimeFailuresOfRealPanics runs the operations for which Go raises
// a runtime error and yaegi panics with something else, and checks what it
// panics with and what Go's message is made of it.
func TestRuntimeFailuresOfRealPanics(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		value string // the panic value's text, as yaegi gives it
		goMsg string // RuntimeFailure's message
	}{
		{"slice-index", "s := []int{1}; i := 5; _ = s[i]", "reflect: slice index out of range", "index out of range"},
		{"string-index", `s := "a"; i := 5; _ = s[i]`, "reflect: string index out of range", "index out of range"},
		{"slice-bounds", "s := []int{1}; i := 5; _ = s[1:i]", "reflect.Value.Slice: slice index out of bounds", "slice bounds out of range"},
		{"nil-pointer-field", "p := (*struct{ X int })(nil); _ = p.X", "reflect: call of reflect.Value.Field on zero Value", "invalid memory address or nil pointer dereference"},
		{"make-negative-len", "n := -1; _ = make([]int, n)", "reflect.MakeSlice: negative len", "makeslice: len out of range"},
		{"slice-to-array", "s := []int{1}; _ = [4]int(s)", "reflect: cannot convert slice with length 1 to array with length 4", "cannot convert slice with length 1 to array or pointer to array with length 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yi := newInterp(t, nil, nil)
			rec, err := evalAll(yi, tt.src)
			var p interp.Panic
			if !errors.As(err, &p) || rec != nil {
				t.Fatalf("err %v, interpreter panic %v; want an interp.Panic", err, rec)
			}
			v := PanicValue(p.Value)
			if s, ok := v.(string); ok && s != tt.value {
				t.Errorf("panic value %q; want %q", s, tt.value)
			}
			if e, ok := v.(error); ok && e.Error() != tt.value {
				t.Errorf("panic value %q; want %q", e, tt.value)
			}
			if msg, ok := RuntimeFailure(v); !ok || msg != tt.goMsg {
				t.Errorf("RuntimeFailure(%#v) = %q, %v; want %q, true", v, msg, ok, tt.goMsg)
			}
			if IsRunError(v) {
				t.Errorf("IsRunError(%#v); want a reflect panic", v)
			}
		})
	}
}

// TestPlainRuntimeFailureOfRealPanic: a negative channel buffer panics in
// reflect with its string; Go's error is the runtime's plain "makechan:
// size out of range" (no "runtime error: " prefix).
func TestPlainRuntimeFailureOfRealPanic(t *testing.T) {
	yi := newInterp(t, nil, nil)
	_, err := evalAll(yi, "n := -1; _ = make(chan int, n)")
	var p interp.Panic
	if !errors.As(err, &p) {
		t.Fatalf("err %v; want an interp.Panic", err)
	}
	v := PanicValue(p.Value)
	if msg, ok := PlainRuntimeFailure(v); !ok || msg != "makechan: size out of range" {
		t.Errorf("PlainRuntimeFailure(%#v) = %q, %v; want makechan: size out of range, true", v, msg, ok)
	}
	if _, ok := RuntimeFailure(v); ok {
		t.Errorf("RuntimeFailure(%#v) ok; want it left to PlainRuntimeFailure", v)
	}
	if _, ok := PlainRuntimeFailure("boom"); ok {
		t.Error(`PlainRuntimeFailure("boom") ok; want the code's own panic kept`)
	}
}

// TestPanicValueOfRealPanic: the code's own panic value reaches Go, and
// recover(), as a reflect.Value, which PanicValue unwraps; a native
// function's as it is.
func TestPanicValueOfRealPanic(t *testing.T) {
	yi := newInterp(t, nil, nil)
	native := errors.New("native boom")
	if err := yi.Use(interp.Exports{"nat/nat": {"Boom": reflect.ValueOf(func() { panic(native) })}}); err != nil {
		t.Fatal(err)
	}
	_, err := evalAll(yi, `import "nat"`, "func rec(f func()) (r any) { defer func() { r = recover() }(); f(); return }")
	if err != nil {
		t.Fatal(err)
	}
	v, err := yi.Eval(`rec(func() { panic("boom") })`)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := v.Interface().(reflect.Value); !ok || PanicValue(r) != "boom" {
		t.Errorf("recover() of panic(\"boom\") gave %#v; want a reflect.Value of boom", v.Interface())
	}
	if v, err = yi.Eval("rec(nat.Boom)"); err != nil || v.Interface() != native {
		t.Errorf("recover() of a native panic gave %#v, %v; want the native value", v.Interface(), err)
	}
	_, err = evalAll(yi, "nat.Boom()")
	var np interp.Panic
	if !errors.As(err, &np) || np.Value != native {
		t.Errorf("a native panic gave %#v; want an interp.Panic of the native value", err)
	}
	_, err = evalAll(yi, `panic("boom")`)
	var p interp.Panic
	if !errors.As(err, &p) {
		t.Fatalf("err %v; want an interp.Panic", err)
	}
	if _, ok := p.Value.(string); ok {
		t.Fatalf("panic value %#v is a plain string: yaegi no longer wraps it", p.Value)
	}
	if v := PanicValue(p.Value); v != "boom" {
		t.Errorf("PanicValue = %#v; want \"boom\"", v)
	}
	if _, ok := RuntimeFailure("boom"); ok {
		t.Error(`RuntimeFailure("boom") ok; want the code's own panic kept`)
	}
}

// TestFailedAssertionOfRealAssertion: a failed type assertion is yaegi's
// own error type with its position before Go's text.
func TestFailedAssertionOfRealAssertion(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"concrete", "x := any(1); _ = x.(string)", "interface conversion: interface {} is int, not string"},
		{"interface", "x := any(1); _ = x.(fmt.Stringer)", "interface conversion: int is not fmt.Stringer: missing method String"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yi := newInterp(t, nil, nil)
			rec, err := evalAll(yi, `import "fmt"`, tt.src)
			var p interp.Panic
			if !errors.As(err, &p) || rec != nil {
				t.Fatalf("err %v, interpreter panic %v; want an interp.Panic", err, rec)
			}
			v := PanicValue(p.Value)
			if !IsRunError(v) {
				t.Fatalf("IsRunError(%T) false; want yaegi's cfgError", v)
			}
			if msg, ok := FailedAssertion(v); !ok || msg != tt.msg {
				t.Errorf("FailedAssertion(%q) = %q, %v; want %q, true", v, msg, ok, tt.msg)
			}
		})
	}
	if IsRunError(errors.New("1:2: interface conversion: x")) {
		t.Error("IsRunError of a plain error; want only yaegi's type")
	}
}
