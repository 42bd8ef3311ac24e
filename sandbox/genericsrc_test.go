package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// yaegi's generic sources (cmp, maps, slices) are compiled only once a
// cell may reach them; every way of reaching them still works.
func TestGenericSourcesCompiledOnDemand(t *testing.T) {
	cases := []struct {
		name       string
		noLowering bool
		upload     string // source of classes/src/up/up.go
		cells      []string
		want       string
	}{
		{name: "plain-cells-compile-none", cells: []string{"x := []int{1}", "x[0] + 1"}, want: "2\n"},
		{name: "import-slices-lowered-away", cells: []string{`import "slices"`, "slices.Index([]int{4, 5}, 5)"}, want: "1\n"},
		{name: "import-slices-as-typed", noLowering: true, cells: []string{`import "slices"`, "slices.Contains([]int{4, 5}, 5)"}, want: "true\n"},
		{name: "import-cmp-as-typed", noLowering: true, cells: []string{`import "cmp"`, "cmp.Compare(1, 2)"}, want: "-1\n"},
		{name: "upload-imports-slices", upload: "package up\n\nimport \"slices\"\n\nfunc Has(s []int, v int) bool { return slices.Contains(s, v) }\n",
			cells: []string{`import "up"`, "up.Has([]int{7}, 7)"}, want: "true\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.upload != "" {
				pkg := filepath.Join(dir, "classes", "src", "up")
				if err := os.MkdirAll(pkg, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(pkg, "up.go"), []byte(c.upload), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			in, err := NewInterp(Options{Dir: dir, Stdout: &out, NoLowering: c.noLowering})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			for _, cell := range c.cells {
				if err := in.Eval(context.Background(), cell, true); err != nil {
					t.Fatalf("Eval(%q): %v", cell, err)
				}
			}
			if got := out.String(); got != c.want {
				t.Errorf("output %q; want %q", got, c.want)
			}
			// The front end rewrites the generic packages' calls away.
			wantCompiled := !strings.HasSuffix(c.name, "-none") && !strings.HasSuffix(c.name, "-away")
			if in.genericsDone != wantCompiled {
				t.Errorf("generic sources compiled: %v; want %v", in.genericsDone, wantCompiled)
			}
		})
	}
}
