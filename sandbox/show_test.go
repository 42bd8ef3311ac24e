package sandbox

import (
	"bytes"
	"context"
	"testing"
)

// TestShownValues asserts what the prompt shows for an expression
// statement (issue 14, point 2), through a real interpreter.
func TestShownValues(t *testing.T) {
	var out bytes.Buffer
	in, err := NewInterp(Options{Allow: NewAllowlist(nil), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	setup := "import (\n\"encoding/json\"\n\"errors\"\n\"os\"\n\"strconv\"\n\"fmt\"\n)\n" +
		"type P struct{ X, Y int }\n" +
		"type Named struct{ Name string; Next *Named }\n" +
		"type Celsius float64\n" +
		"func (c Celsius) String() string { return fmt.Sprintf(\"%.1f°C\", float64(c)) }\n" +
		"type Oops struct{ Code int }\n" +
		"func (o *Oops) Error() string { return \"oops \" + strconv.Itoa(o.Code) }\n" +
		"type Fm int\n" +
		"func (f Fm) Format(s fmt.State, c rune) { fmt.Fprintf(s, \"F<%c%d>\", c, int(f)) }\n" +
		"var _ = os.Remove\nvar _ = errors.New\nvar _ = json.Marshal"
	if err := in.Eval(context.Background(), setup, true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, cell, want string }{
		{"struct-field-names", "P{1, 2}", "{X:1 Y:2}\n"},
		{"pointer-to-struct", "&P{1, 2}", "&{X:1 Y:2}\n"},
		{"nested-pointer", "Named{\"a\", &Named{\"b\", nil}}", "{Name:a Next:&{Name:b Next:<nil>}}\n"},
		{"string-method-of-cell-type", "Celsius(21.5)", "21.5°C\n"},
		{"error-method-of-cell-type", "&Oops{7}", "oops 7\n"},
		{"string-quoted", `"hi"`, "\"hi\"\n"},
		{"bytes-as-text", `[]byte("hi\n")`, "\"hi\\n\"\n"},
		{"bytes-not-printable", `[]byte{0, 1, 255}`, "[0 1 255]\n"},
		{"marshal-indent", `json.MarshalIndent(map[string]int{"a": 1}, "", " ")`, "\"{\\n \\\"a\\\": 1\\n}\"\n"},
		{"value-error-nil", `strconv.Atoi("42")`, "42\n"},
		{"value-error-set", `strconv.Atoi("x")`, "strconv.Atoi: parsing \"x\": invalid syntax\n"},
		{"func-by-type", `strconv.Itoa`, "func(int) string\n"},
		{"mid-cell-nil-error-silent", "os.Remove(\"/nonexistent-dir-of-test/x\") == nil\nerrors.Unwrap(errors.New(\"x\"))\n1", "false\n1\n"},
		{"format-method-of-cell-type", "Fm(3)", "F<v3>\n"},
		{"format-method-nested", "struct{ A []Fm }{[]Fm{1, 2}}", "{A:[F<v1> F<v2>]}\n"},
		{"slice-of-cell-type-behind-any", "[]any{[]Celsius{1}, map[string]Celsius{\"k\": 2}}", "[[1.0°C] map[k:2.0°C]]\n"},
		{"print-shows-nothing-else", `fmt.Println("hi")`, "hi\n"},
		{"several-results", `func() (string, int) { return "a", 2 }()`, "\"a\" 2\n"},
		{"print-results-hidden", `fmt.Print("")`, ""},
		{"long-value-over-lines", `[]Named{{Name: "aaaaaaaaaaaaaaaaaaaa"}, {Name: "bbbbbbbbbbbbbbbbbbbbbbbb"}, {Name: "cccccccccccccccccccc"}}`,
			"[\n  {Name:aaaaaaaaaaaaaaaaaaaa Next:<nil>}\n  {Name:bbbbbbbbbbbbbbbbbbbbbbbb Next:<nil>}\n  {Name:cccccccccccccccccccc Next:<nil>}\n]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			if err := in.Eval(context.Background(), tc.cell, true); err != nil {
				t.Fatalf("eval %q: %v", tc.cell, err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// TestShownExpressionRunsOnce asserts that trying the method wrappers does
// not run an expression twice, also when it panics.
func TestShownExpressionRunsOnce(t *testing.T) {
	var out bytes.Buffer
	in, err := NewInterp(Options{Allow: NewAllowlist(nil), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	if err := in.Eval(ctx, "n := 0\nfunc bump() int { n++; return n }\nfunc boom() int { n++; panic(\"no\") }", true); err != nil {
		t.Fatal(err)
	}
	if err := in.Eval(ctx, "bump()", true); err != nil {
		t.Fatal(err)
	}
	if err := in.Eval(ctx, "boom()", true); err == nil {
		t.Fatal("boom() did not fail")
	}
	out.Reset()
	if err := in.Eval(ctx, "n", true); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "2\n" {
		t.Errorf("n = %q; want 2 (each expression run once)", got)
	}
}

// BenchmarkShowExpression is the cost of a shown expression, which tries
// the Error and String wrappers before the plain tuple.
func BenchmarkShowExpression(b *testing.B) {
	in, err := NewInterp(Options{Allow: NewAllowlist(nil)})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	if err := in.Eval(ctx, "type P struct{ X, Y int }\np := P{1, 2}", false); err != nil {
		b.Fatal(err)
	}
	for _, show := range []bool{false, true} {
		name := "hidden"
		if show {
			name = "shown"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := in.Eval(ctx, "p", show); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
