package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An import is known by the name the code uses for it: a major version is
// no name, and an upload is named by its package clause, not its directory.
func TestCompleteKnowsImportsByTheirNames(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "classes", "src", "mylib")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package util\n\nfunc Twice(x int) int { return 2 * x }\n"
	if err := os.WriteFile(filepath.Join(pkg, "util.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	in, err := NewInterp(Options{Dir: dir, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	ctx := context.Background()
	// Twice: the second import of each is dropped, not an error.
	for range 2 {
		if err := in.Eval(ctx, "import (\n\t\"math/rand/v2\"\n\t\"mylib\"\n)", false); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Eval(ctx, "util.Twice(21)", true); err != nil || out.String() != "42\n" {
		t.Fatalf("util.Twice(21): %v, output %q; want 42", err, out.String())
	}
	for word, want := range map[string]string{
		"rand.Int": "rand.Int rand.Int32 rand.Int32N rand.Int64 rand.Int64N rand.IntN",
		"util":     "util",
		"myli":     "",
		"v2":       "",
	} {
		if got := strings.Join(in.Complete(word), " "); got != want {
			t.Errorf("Complete(%q) = %q; want %q", word, got, want)
		}
	}
}
