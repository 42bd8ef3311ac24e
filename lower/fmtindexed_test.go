package lower

import (
	"fmt"
	"testing"
)

// The operand of each directive of a format with explicit indexes, as
// fmt's doPrintf assigns them; formats printIndexed does not serve are
// refused.
func TestParseIndexed(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		want         string // verb:arg:spec per directive; "" when refused
	}{
		{"same-operand", "%[1]v %[1]T", "v:0: T:0:"},
		{"index-then-next", "%[2]v %v %[1]d", "v:1: v:2: d:0:"},
		{"flags-width", "%-8[1]s|%+.2[2]f", "s:0:-8 f:1:+.2"},
		{"index-before-width", "%[2]6d", "d:1:6"},
		{"percent", "%[1]v %% %v", "v:0: v:1:"},
		{"no-index", "%v %T", ""},
		{"star", "%[1]*d", ""},
		{"bad-index", "%[0]v", ""},
		{"unclosed", "%[1v", ""},
		{"no-verb", "%[1]", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			verbs, ok := parseIndexed(tc.format)
			got := ""
			if ok {
				for i, v := range verbs {
					if i > 0 {
						got += " "
					}
					got += fmt.Sprintf("%c:%d:%s", v.verb.verb, v.arg, v.spec)
				}
			}
			if got != tc.want {
				t.Errorf("parseIndexed(%q) = %q; want %q", tc.format, got, tc.want)
			}
		})
	}
}
