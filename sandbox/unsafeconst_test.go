package sandbox

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

const unsafeRefusal = "package unsafe is not allowed in a session (the host's --allow-pkg adds packages)"

// unsafe.Sizeof, Alignof and Offsetof run without the package (their gc
// amd64 values, what `go run` prints); every other use of unsafe is
// refused with the line a denied import always had, at the import, or at
// the use in a cell after the one that imported it.
func TestUnsafeConstantsRunOtherUsesRefused(t *testing.T) {
	tests := []struct {
		name  string
		cells []string // all but the last succeed
		out   string   // the output of all the cells
		err   string   // the last cell's error, "" if none
	}{
		{"sizeof", []string{"import \"unsafe\"\ntype R struct { a bool; s any; b int16 }\nvar r R\nunsafe.Sizeof(r)"}, "32\n", ""},
		{"offsetof-alignof", []string{"import (\n\t\"fmt\"\n\t\"unsafe\"\n)\ntype R struct { a bool; s any; b int16 }\nvar r R\nfmt.Println(unsafe.Offsetof(r.b), unsafe.Alignof(r.b))"}, "24 2\n", ""},
		{"typed-uintptr", []string{"import (\n\t\"fmt\"\n\t\"unsafe\"\n)\nfmt.Printf(\"%T\\n\", unsafe.Sizeof(0))"}, "uintptr\n", ""},
		{"import-then-use", []string{`import "unsafe"`, "x := [3]int32{}", "unsafe.Sizeof(x)"}, "12\n", ""},
		{"pointer-refused", []string{"import \"unsafe\"\nx := 1\np := unsafe.Pointer(&x)\n_ = p"}, "", "1:8: " + unsafeRefusal},
		{"pointer-with-sizeof-refused", []string{"import (\n\t\"unsafe\"\n)\nx := 1\n_ = unsafe.Sizeof(x)\n_ = unsafe.Add(unsafe.Pointer(&x), 1)"}, "", "2:2: " + unsafeRefusal},
		{"dot-import-refused", []string{"import . \"unsafe\"\n_ = Sizeof(1)"}, "", "1:10: " + unsafeRefusal},
		{"later-cell-pointer-refused", []string{`import "unsafe"`, "x := 1", "y := 2\n_ = unsafe.Pointer(&x)"}, "", "2:5: " + unsafeRefusal},
		{"type-error-after-refusal", []string{"import \"unsafe\"\nvar p unsafe.Pointer = nope"}, "", "1:8: " + unsafeRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out := newTestInterp(t)
			ctx := context.Background()
			last := len(tt.cells) - 1
			for _, c := range tt.cells[:last] {
				if err := in.Eval(ctx, c, true); err != nil {
					t.Fatalf("Eval(%q): %v", c, err)
				}
			}
			err := in.Eval(ctx, tt.cells[last], true)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Eval(%q): %v", tt.cells[last], err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Fatalf("Eval(%q) = %v; want %q", tt.cells[last], err, tt.err)
			}
			if got := out.String(); got != tt.out {
				t.Errorf("output %q; want %q", got, tt.out)
			}
			if err := in.Eval(ctx, "1", false); err != nil {
				t.Errorf("after the cell: %v", err)
			}
		})
	}
}

// Without the front end, or with unsafe allowed, a cell is what it was:
// refused at its import, or given to the interpreter's own unsafe.
func TestUnsafeWithoutFoldingKeepsTodaysBehaviour(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	plain, err := NewInterp(Options{Dir: t.TempDir(), Stdout: &out, Stderr: &out, NoLowering: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	err = plain.Eval(ctx, "import \"unsafe\"\nunsafe.Sizeof(1)", true)
	if err == nil || err.Error() != "1:8: "+unsafeRefusal {
		t.Errorf("without lowering: %v; want %q", err, "1:8: "+unsafeRefusal)
	}

	// The host offers no unsafe of its own (--allow-pkg refuses it): an
	// allowlist that has it hands the cell to the interpreter as it is.
	allowed, err := NewInterp(Options{Dir: t.TempDir(), Stdout: &out, Stderr: &out, Allow: NewAllowlist([]string{"unsafe"})})
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	err = allowed.Eval(ctx, "import \"unsafe\"\nunsafe.Sizeof(1)", true)
	if err == nil || !strings.Contains(err.Error(), `import "unsafe" error`) {
		t.Errorf("with unsafe allowed: %v; want the interpreter's own import error", err)
	}
}
