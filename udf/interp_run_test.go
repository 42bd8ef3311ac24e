package udf

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// Records through functions that yaegi interprets, as a session runs them.

func TestRunInterpretedMillionInOrder(t *testing.T) {
	f := interpreted(t, "upper", `func(s string) string { return "x" + strings.ToUpper(s) }`, "strings")
	const n = 1_000_000
	want := 0
	out := &lineCheck{tb: t, name: "out", next: func() string { want++; return "x" + strconv.Itoa(want) }}
	gen := numbers(n)
	st, err := Run(context.Background(), f, gen, out, io.Discard, 2)
	if err != nil || st != (Stats{Records: n}) || out.lines != n || len(out.tail) != 0 {
		t.Errorf("got %+v, %v, %d lines; want %d records, nil, %d lines", st, err, out.lines, n, n)
	}
}

func TestRunInterpretedPanicEvery1000th(t *testing.T) {
	f := interpreted(t, "picky", `func(s string) string {
		n, _ := strconv.Atoi(s)
		if n%1000 == 0 {
			panic("boom")
		}
		return s
	}`, "strconv")
	const n = 1_000_000
	rec := 0
	out := &lineCheck{tb: t, name: "out", next: func() string {
		if rec++; rec%1000 == 0 {
			rec++
		}
		return strconv.Itoa(rec)
	}}
	bad := 0
	errs := &lineCheck{tb: t, name: "errs", next: func() string {
		bad += 1000
		return fmt.Sprintf("record %d: panic: boom", bad)
	}}
	st, err := Run(context.Background(), f, numbers(n), out, errs, 2)
	if err != nil || st != (Stats{Records: n, Failed: 1000}) {
		t.Errorf("got %+v, %v; want {Records:%d Failed:1000}, nil", st, err, n)
	}
	if out.lines != 999_000 || errs.lines != 1000 {
		t.Errorf("got %d results and %d error lines; want 999000 and 1000", out.lines, errs.lines)
	}
}

func TestRunInterpretedJSON(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		input    string
		wantOut  string
		wantErrs string
	}{
		{"add", `func(a, b int) int { return a + b }`, "[1,2]\n[40, 2]\n[1,\"x\"]\n", "3\n42\n",
			"record 3: argument 2: json: cannot unmarshal string into Go value of type int\n"},
		{"struct-in-and-out", `func(p P, k int) P { p.N *= k; return p }`,
			"[{\"Name\":\"a\",\"N\":2},3]\n", "{\"Name\":\"a\",\"N\":6}\n", ""},
		{"slice-result", `func(s string, n int) []string { return strings.Split(s, ",")[:n] }`,
			"[\"a,b,c\",2]\n[\"a\",5]\n", "[\"a\",\"b\"]\n",
			"record 2: panic: reflect.Value.Slice: slice index out of bounds\n"},
		{"custom-error", `func(n int) (string, error) { if n < 0 { return "", E{n} }; return "ok", nil }`,
			"[1]\n[-1]\n", "ok\n", "record 2: negative: -1\n"},
		{"error-only", `func(s string) error { if s == "" { return errors.New("empty") }; return nil }`,
			"[\"a\"]\n[\"\"]\n", "", "record 2: empty\n"},
		{"string-error", `func(s string) (string, error) { if s == "x" { return "", fmt.Errorf("no %s", s) }; return s + s, nil }`,
			"ab\nx\n", "abab\n", "record 2: no x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &Registry{}
			i := newInterp(t, reg, nil)
			eval(t, i, `import "udf"`, `import "strings"`, `import "errors"`, `import "fmt"`,
				`type P struct { Name string; N int }`,
				`type E struct { n int }`,
				`func (e E) Error() string { return fmt.Sprintf("negative: %d", e.n) }`,
				fmt.Sprintf("udf.Register(%q, %s)", tt.name, tt.src))
			out, errs, _ := runString(t, lookup(t, reg, tt.name), tt.input, 2)
			if out != tt.wantOut {
				t.Errorf("out: got %q; want %q", out, tt.wantOut)
			}
			if errs != tt.wantErrs {
				t.Errorf("errs: got %q; want %q", errs, tt.wantErrs)
			}
		})
	}
}

// TestRunInterpretedConcurrent calls one interpreted function from many
// goroutines at once; run with -race, it shows that yaegi v0.16.1 needs no
// lock around such calls (each call gets its own frame).
func TestRunInterpretedConcurrent(t *testing.T) {
	reg := &Registry{}
	i := newInterp(t, reg, nil)
	eval(t, i, `import "udf"`, `import "strings"`, `import "strconv"`, `import "fmt"`,
		`type P struct { Name string; N int }`,
		`var table = map[string]int{"x": 1}`,
		`func fib(n int) int { if n < 2 { return n }; return fib(n-1) + fib(n-2) }`,
		`func helper(s string) string { b := []byte(s); for i := range b { if b[i] == '1' { b[i] = 'I' } }; return string(b) }`,
		`udf.Register("mix", func(s string) (string, error) {
			defer func() {}()
			n, err := strconv.Atoi(s)
			if err != nil { return "", err }
			p := P{Name: helper(s), N: n + table["x"] + fib(7)}
			if n%97 == 0 {
				func() { defer func() { recover() }(); panic("caught") }()
			}
			parts := strings.Split(fmt.Sprintf("%s-%d", p.Name, p.N), "-")
			return strings.Join(parts, "+"), nil
		})`)
	const n = 20_000
	want := 0
	out := &lineCheck{tb: t, name: "out", next: func() string {
		want++
		return strings.ReplaceAll(strconv.Itoa(want), "1", "I") + "+" + strconv.Itoa(want+1+13)
	}}
	st, err := Run(context.Background(), lookup(t, reg, "mix"), numbers(n), out, io.Discard, 16)
	if err != nil || st != (Stats{Records: n}) {
		t.Errorf("got %+v, %v; want {Records:%d}, nil", st, err, n)
	}
}
