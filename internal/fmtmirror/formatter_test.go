package fmtmirror_test

import (
	"fmt"
	"testing"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// A Formatter inside the stand-ins gets fmt's own State: the verb, flags,
// width and precision of the operand, at any depth; a nil method prints
// <nil>.
func TestFormatterGetsTheOperandsState(t *testing.T) {
	f := fmtmirror.NewFormatter(func(s fmt.State, c rune) {
		w, _ := s.Width()
		p, _ := s.Precision()
		fmt.Fprintf(s, "<%c %v%v %d.%d>", c, s.Flag('+'), s.Flag('#'), w, p)
	})
	box := fmtmirror.NewStruct("A,B", f, fmtmirror.NewFormatter(nil))
	for _, tc := range []struct {
		format string
		v      any
		want   string
	}{
		{"%v", f, "<v falsefalse 0.0>"},
		{"%+8.3x", f, "<x truefalse 8.3>"},
		{"%#v", f, "<v falsetrue 0.0>"},
		{"%v", box, "{<v falsefalse 0.0> <nil>}"},
		{"%+d", box, "{<d truefalse 0.0> <nil>}"}, // names for %+v only, as in Go
		{"%+v", box, "{A:<v truefalse 0.0> B:<nil>}"},
		{"%v", []any{f}, "[<v falsefalse 0.0>]"},
	} {
		if got := fmt.Sprintf(tc.format, tc.v); got != tc.want {
			t.Errorf("%s: got %q; want %q", tc.format, got, tc.want)
		}
	}
}
