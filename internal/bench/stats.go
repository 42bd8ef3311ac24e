package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// samples are durations of one measurement on one side.
type samples []time.Duration

// quantile is the q-quantile (nearest rank) of s; 0 when s is empty.
func (s samples) quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	i := int(q*float64(len(c))+0.5) - 1
	return c[max(0, min(i, len(c)-1))]
}

func (s samples) median() time.Duration { return s.quantile(0.5) }
func (s samples) p99() time.Duration    { return s.quantile(0.99) }

// ms formats d in milliseconds with a precision that suits its size.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 10:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f ms", f)
}

// medP99 is "median (p99 X)".
func (s samples) medP99() string {
	if len(s) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (p99 %s)", ms(s.median()), ms(s.p99()))
}

// ratio is ours/theirs to two digits, "" when either is missing.
func ratio(ours, theirs float64) string {
	if ours == 0 || theirs == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", ours/theirs)
}

func mib(b float64) string { return fmt.Sprintf("%.2f MiB", b/(1<<20)) }

func kb(b float64) string { return fmt.Sprintf("%.1f KB", b/1000) }

// row is one line of the result table.
type row struct {
	metric, ours, theirs, ratio, note string
}

// table writes rows as a markdown table.
func table(w io.Writer, head []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}
