package udf

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestRegisterRejects(t *testing.T) {
	tests := []struct {
		name    string
		udfName string
		fn      any
		want    string
	}{
		{"empty-name", "", strings.ToUpper, `udf: empty name`},
		{"name-with-space", "a b", strings.ToUpper, `udf: name "a b": want no spaces or control characters`},
		{"name-with-newline", "a\n", strings.ToUpper, `udf: name "a\n": want no spaces or control characters`},
		{"nil", "x", nil, `udf: "x": got nil, want a function`},
		{"not-a-function", "x", 42, `udf: "x": got int, want a function`},
		{"nil-function", "x", (func(string) string)(nil), `udf: "x": got a nil func(string) string`},
		{"variadic", "x", fmt.Sprint, `udf: "x": func(...interface {}) string is variadic; want a fixed number of arguments`},
		{"channel-argument", "x", func(chan int) int { return 0 },
			`udf: "x": argument 1 is a channel (chan int); records carry only JSON values`},
		{"function-argument", "x", func(int, func()) int { return 0 },
			`udf: "x": argument 2 is a function (func()); records carry only JSON values`},
		{"interface-argument", "x", func(io.Reader) int { return 0 },
			`udf: "x": argument 1 is the interface io.Reader; records carry only JSON values`},
		{"complex-argument", "x", func(complex128) int { return 0 },
			`udf: "x": argument 1 is complex128; records carry only JSON values`},
		{"three-results", "x", func() (int, int, error) { return 0, 0, nil },
			`udf: "x": func() (int, int, error) has 3 results; want at most a value and an error`},
		{"two-values", "x", func() (int, string) { return 0, "" },
			`udf: "x": second result of func() (int, string) is string; want error`},
		{"two-errors", "x", func() (error, error) { return nil, nil },
			`udf: "x": func() (error, error) has two error results; want at most a value and an error`},
		{"channel-result", "x", func(string) chan int { return nil },
			`udf: "x": result is a channel (chan int); results are written as JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reg Registry
			replaced, err := reg.Register(tt.udfName, tt.fn)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v; want %v", err, tt.want)
			}
			if replaced {
				t.Errorf("got replaced; want not")
			}
			if got := reg.List(); len(got) != 0 {
				t.Errorf("got list %v; want empty", got)
			}
		})
	}
}

type myString string

func TestRegisterAccepts(t *testing.T) {
	tests := []struct {
		name    string
		fn      any
		want    string
		lineArg bool
	}{
		{"string-to-string", strings.ToUpper, "func(string) string", true},
		{"string-to-string-error", func(s string) (string, error) { return s, nil }, "func(string) (string, error)", true},
		{"named-string", func(s myString) myString { return s }, "func(udf.myString) udf.myString", true},
		{"json-arguments", func(a, b int) int { return a + b }, "func(int, int) int", false},
		{"string-to-int", func(s string) int { return len(s) }, "func(string) int", false},
		{"error-only", func(s string) error { return nil }, "func(string) error", false},
		{"no-arguments-no-results", func() {}, "func()", false},
		{"any-to-any", func(v any) any { return v }, "func(interface {}) interface {}", false},
		{"stringer-result", func(s string) fmt.Stringer { return nil }, "func(string) fmt.Stringer", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := native(t, tt.fn)
			if got := f.Signature(); got != tt.want {
				t.Errorf("got signature %q; want %q", got, tt.want)
			}
			if f.lineArg != tt.lineArg {
				t.Errorf("got lineArg %v; want %v", f.lineArg, tt.lineArg)
			}
		})
	}
}

func TestRegisterReplaces(t *testing.T) {
	var reg Registry
	if replaced, err := reg.Register("clean", strings.ToUpper); replaced || err != nil {
		t.Fatalf("got %v, %v; want false, nil", replaced, err)
	}
	old := lookup(t, &reg, "clean")
	if replaced, err := reg.Register("clean", strings.TrimSpace); !replaced || err != nil {
		t.Fatalf("got %v, %v; want true, nil", replaced, err)
	}
	if got := lookup(t, &reg, "clean").str(" a "); got != "a" {
		t.Errorf("newer: got %q; want %q", got, "a")
	}
	if got := old.str("a"); got != "A" {
		t.Errorf("older Func: got %q; want %q", got, "A")
	}
	if _, err := reg.Register("clean", 1); err == nil {
		t.Errorf("got nil error for a bad function")
	}
	if got := lookup(t, &reg, "clean").str(" a "); got != "a" {
		t.Errorf("after a rejected one: got %q; want %q", got, "a")
	}
}

func TestList(t *testing.T) {
	var reg Registry
	for name, fn := range map[string]any{
		"upper": strings.ToUpper,
		"add":   func(a, b int) int { return a + b },
		"check": func(s string) error { return nil },
	} {
		if _, err := reg.Register(name, fn); err != nil {
			t.Fatal(err)
		}
	}
	want := []Entry{
		{"add", "func(int, int) int"},
		{"check", "func(string) error"},
		{"upper", "func(string) string"},
	}
	if got := reg.List(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if got, want := want[2].String(), "upper func(string) string"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	if _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope): got found; want not")
	}
}
