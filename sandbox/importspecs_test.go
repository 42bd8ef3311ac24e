package sandbox

import (
	"context"
	"testing"
)

// The one parse of an import unit's specs gives every check of its imports
// the user's positions: denied imports in a group or after code, code after
// a re-import that was blanked (and a syntax error after a statement header).
func TestPositionsThroughTheImportChecks(t *testing.T) {
	tests := []struct {
		name  string
		cells []string // the last one fails
		want  string
	}{
		{"denied-in-group", []string{"import (\n\t\"fmt\"\n\t\"os/exec\"\n)"}, `3:2: package os/exec is not allowed in a session (the host's --allow-pkg adds packages)`},
		{"denied-after-column", []string{"x := 1; import \"syscall\""}, `1:16: package syscall is not allowed in a session (the host's --allow-pkg adds packages)`},
		{"after-reimport", []string{`import "fmt"`, "import (\n\t\"fmt\"\n\t\"strings\"\n)\n_ = strings.ToUpper(nope)"}, "5:21: undefined: nope"},
		{"after-reimport-in-line", []string{`import "fmt"`, `import ("fmt"; "strings"); _ = strings.ToUpper(nope)`}, "1:48: undefined: nope"},
		{"after-header", []string{"for i := 0; i < 3; i++ {\n\t_ = i\n}\ny := )"}, "4:6: expected operand, found ')'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := newTestInterp(t)
			ctx := context.Background()
			last := len(tt.cells) - 1
			for _, c := range tt.cells[:last] {
				if err := in.Eval(ctx, c, false); err != nil {
					t.Fatal(err)
				}
			}
			err := in.Eval(ctx, tt.cells[last], false)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v; want %q", err, tt.want)
			}
		})
	}
}

// BenchmarkReimportCell is a cell that imports what the session has: its
// imports are checked (allowlist, re-import) and dropped, nothing runs.
func BenchmarkReimportCell(b *testing.B) {
	in, _ := newTestInterp(b)
	ctx := context.Background()
	const cell = "import (\n\t\"fmt\"\n\t\"strings\"\n)"
	if err := in.Eval(ctx, cell, false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := in.Eval(ctx, cell, false); err != nil {
			b.Fatal(err)
		}
	}
}
