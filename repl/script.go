package repl

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"strings"

	"github.com/replhost/replhost/sandbox"
)

// RunScript runs src with program semantics: imports, declarations and
// statements top to bottom like the body of main, only what the code prints
// is output. A whole program (package main with func main) runs its main:
// yaegi runs a main defined in package main after the cell that defines it.
// It returns the exit status: 0, the code's os.Exit status, or 1 after the
// first failing cell with "error: ..." on stderr.
func (s *Session) RunScript(ctx context.Context, src string, stdout, stderr io.Writer) int {
	err := s.Eval(ctx, programBody(src), false, stdout, stderr)
	return ExitStatus(stderr, err)
}

// ExitStatus reports err on w (one line) and returns the exit status for it.
func ExitStatus(w io.Writer, err error) int {
	var exit *sandbox.ExitError
	var crash *sandbox.CrashError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &crash):
		return 1 // reported when it happened
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintln(w, "error: timed out")
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "interrupted")
	default:
		fmt.Fprintf(w, "error: %v\n", err)
	}
	return 1
}

// programBody blanks the package clause of a whole Go program, keeping
// every position, so it runs as a cell.
func programBody(src string) string {
	if !strings.Contains(src, "package") {
		return src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.PackageClauseOnly)
	if err != nil {
		return src
	}
	start := fset.Position(f.Package).Offset
	end := fset.Position(f.Name.End()).Offset
	return src[:start] + strings.Repeat(" ", end-start) + src[end:]
}
