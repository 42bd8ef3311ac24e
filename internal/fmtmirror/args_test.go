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

// A %w operand that is no error is handed to conv as AsError, and what
// conv makes of it is wrapped; an error, or a value conv does not know,
// is left as it is.
func TestFormatArgsWrapAsError(t *testing.T) {
	type opaque struct{ n int }
	known := opaque{1}
	conv := func(v any) any {
		if w, ok := v.(AsError); ok && w.V == any(known) {
			return fmt.Errorf("known %d", known.n)
		}
		return v
	}
	plain := fmt.Errorf("plain")
	out := FormatArgs("%w %w %w", []any{known, plain, opaque{2}}, conv)
	if err := fmt.Errorf("%w %w %w", out...); err.Error() != "known 1 plain %!w(fmtmirror.opaque={2})" {
		t.Errorf("got %q", err)
	}
	if out[1] != any(plain) {
		t.Errorf("an error operand was replaced: %v", out[1])
	}
}
