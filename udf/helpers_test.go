package udf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newInterp returns a yaegi interpreter with the standard library and the
// udf package bound to reg; replacement notices go to notice.
func newInterp(tb testing.TB, reg *Registry, notice io.Writer) *interp.Interpreter {
	tb.Helper()
	// Stderr gets a line per panic in interpreted code, from several
	// goroutines at once: it must be safe for concurrent use.
	i := interp.New(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
	if err := i.Use(stdlib.Symbols); err != nil {
		tb.Fatal(err)
	}
	if err := i.Use(Exports(reg, notice)); err != nil {
		tb.Fatal(err)
	}
	return i
}

// eval runs each source as one cell and fails the test on an error.
func eval(tb testing.TB, i *interp.Interpreter, srcs ...string) {
	tb.Helper()
	for _, src := range srcs {
		if _, err := i.Eval(src); err != nil {
			tb.Fatalf("eval %q: %v", src, err)
		}
	}
}

// interpreted registers src, an interpreted function expression, as name
// in a new interpreter with the given imports and returns it.
func interpreted(tb testing.TB, name, src string, imports ...string) *Func {
	tb.Helper()
	reg := &Registry{}
	i := newInterp(tb, reg, nil)
	for _, imp := range imports {
		eval(tb, i, fmt.Sprintf("import %q", imp))
	}
	eval(tb, i, `import "udf"`, fmt.Sprintf("udf.Register(%q, %s)", name, src))
	return lookup(tb, reg, name)
}

// native registers fn as a UDF and returns it.
func native(tb testing.TB, fn any) *Func {
	tb.Helper()
	reg := &Registry{}
	if _, err := reg.Register("f", fn); err != nil {
		tb.Fatal(err)
	}
	return lookup(tb, reg, "f")
}

func lookup(tb testing.TB, reg *Registry, name string) *Func {
	tb.Helper()
	f, ok := reg.Lookup(name)
	if !ok {
		tb.Fatalf("Lookup(%q): not found", name)
	}
	return f
}

// runString runs f over input and returns what it wrote.
func runString(tb testing.TB, f *Func, input string, workers int) (out, errs string, st Stats) {
	tb.Helper()
	var o, e bytes.Buffer
	st, err := Run(context.Background(), f, strings.NewReader(input), &o, &e, workers)
	if err != nil {
		tb.Fatalf("Run: %v", err)
	}
	return o.String(), e.String(), st
}

// genLines reads as the lines 1 to n, line i appended by line(dst, i) and
// ended by "\n", generated as they are read; n < 0 never ends.
type genLines struct {
	n, next int
	line    func(dst []byte, i int) []byte
	buf     []byte
	pending []byte
}

// numbers reads as the lines "1" to "n".
func numbers(n int) *genLines {
	return &genLines{n: n, line: func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(i), 10) }}
}

func (g *genLines) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		if len(g.pending) == 0 {
			if g.n >= 0 && g.next >= g.n {
				break
			}
			g.next++
			g.buf = append(g.line(g.buf[:0], g.next), '\n')
			g.pending = g.buf
		}
		c := copy(p[k:], g.pending)
		g.pending = g.pending[c:]
		k += c
	}
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// lineCheck is a writer that checks each line it gets against next(),
// reporting the first few mismatches, and counts the lines.
type lineCheck struct {
	tb    testing.TB
	name  string
	next  func() string
	lines int
	bad   int
	tail  []byte
}

func (c *lineCheck) Write(p []byte) (int, error) {
	data := append(c.tail, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		c.lines++
		if got, want := string(data[:i]), c.next(); got != want && c.bad < 5 {
			c.bad++
			c.tb.Errorf("%s line %d: got %q; want %q", c.name, c.lines, got, want)
		}
		data = data[i+1:]
	}
	c.tail = append([]byte(nil), data...)
	return len(p), nil
}
