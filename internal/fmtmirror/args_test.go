package fmtmirror

import (
	"fmt"
	"testing"
)

// The verb each operand of a format gets, as fmt's doPrintf assigns them:
// flags, widths and precisions (* takes an operand), explicit indexes.
func TestOperandVerbs(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		n            int
		want         []rune
	}{
		{"plain", "%v %s %d", 3, []rune{'v', 's', 'd'}},
		{"flags-width", "%+v|%-5s|%08.3f|%#x", 4, []rune{'v', 's', 'f', 'x'}},
		{"sharp-v", "%#v %v", 2, []rune{sharpV, 'v'}},
		{"percent", "100%% %v", 1, []rune{'v'}},
		{"star-width", "%*d %.*s", 4, []rune{0, 'd', 0, 's'}},
		{"index", "%[2]v %[1]d", 2, []rune{'d', 'v'}},
		{"index-reuse", "%[1]v %[1]d", 1, []rune{'v'}},
		{"type-wins", "%[1]v %[1]T", 1, []rune{'T'}},
		{"fewer-verbs", "%v", 3, []rune{'v', 0, 0}},
		{"more-verbs", "%v %v %v", 1, []rune{'v'}},
		{"truncated", "%", 1, []rune{0}},
		{"wide-verb", "%é %v", 2, []rune{'é', 'v'}},
		{"wrap", "%w: %v", 2, []rune{'w', 'v'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := operandVerbs(tc.format, tc.n)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("operandVerbs(%q, %d) = %q; want %q", tc.format, tc.n, got, tc.want)
			}
		})
	}
}
