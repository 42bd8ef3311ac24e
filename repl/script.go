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
// Meta-commands on lines of their own run where they stand (see RunCells).
// It returns the exit status: 0, the code's os.Exit status, the status of
// the worker when the Go runtime ended it (2 after a goroutine's panic, as
// the program would exit), or 1 after the first failing cell with
// "error: ..." on stderr.
func (s *Session) RunScript(ctx context.Context, src string, stdout, stderr io.Writer) int {
	return ExitStatus(stderr, s.RunCells(ctx, src, false, stdout, stderr))
}

// RunCells runs src, a script or an eval's code, as cells; with show, the
// values of expression statements are shown as at the prompt. A line of its
// own that starts with ':' where no statement is open is a meta-command
// (:help, :journal, :drop N, :load FILE, ...), its output on stdout; the code
// between them runs as one cell each, so src without meta-commands is one
// cell. It stops at the first cell or command that fails and returns its
// error; :quit ends the session and the run, with nil.
func (s *Session) RunCells(ctx context.Context, src string, show bool, stdout, stderr io.Writer) error {
	var cellErr error
	run := func(cell string) error {
		if strings.TrimSpace(cell) == "" {
			return nil
		}
		return s.Eval(ctx, programBody(cell), show, stdout, stderr)
	}
	c := &commander{s: s, ctx: ctx, out: stdout, errOut: stderr, run: func(cell string) bool {
		cellErr = run(cell)
		return cellErr == nil
	}}
	for _, part := range splitScript(src) {
		if !part.meta {
			if err := run(part.text); err != nil {
				return err
			}
			continue
		}
		switch err := c.exec(part.text); {
		case errors.Is(err, errQuit):
			return nil
		case errors.Is(err, errStop):
			return cellErr
		case errors.Is(err, errReported):
			return err
		case err != nil:
			return fmt.Errorf("line %d: %s: %w", part.line, strings.Fields(part.text)[0], err)
		}
	}
	return nil
}

// scriptPart is a run of code, or one meta-command line, of a script.
type scriptPart struct {
	text string
	line int // where it starts, 1-based
	meta bool
}

// splitScript cuts src at its meta-command lines. A code part is padded with
// the newlines before it, so an error's line is the script's line. Only
// lines that start with ':' are checked against the code before them (is a
// statement open?), so a script without meta-commands costs one scan.
func splitScript(src string) []scriptPart {
	var parts []scriptPart
	start, startLine, line := 0, 1, 1
	for off := 0; off < len(src); line++ {
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		text := src[off:next]
		if isMeta(text) && !NeedsMore(src[start:off]) {
			if code := src[start:off]; strings.TrimSpace(code) != "" {
				parts = append(parts, scriptPart{text: strings.Repeat("\n", startLine-1) + code, line: startLine})
			}
			parts = append(parts, scriptPart{text: strings.TrimSpace(text), line: line, meta: true})
			start, startLine = next, line+1
		}
		off = next
	}
	if start == 0 {
		return []scriptPart{{text: src, line: 1}}
	}
	if code := src[start:]; strings.TrimSpace(code) != "" {
		parts = append(parts, scriptPart{text: strings.Repeat("\n", startLine-1) + code, line: startLine})
	}
	return parts
}

// ExitStatus reports err on w (one line) and returns the exit status for it.
func ExitStatus(w io.Writer, err error) int {
	var exit *sandbox.ExitError
	var crash *sandbox.CrashError
	switch {
	case err == nil:
		return 0
	case errors.As(err, new(*RestoreError)):
		fmt.Fprintf(w, "error: %v\n", err) // says itself whether interrupted
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &crash) && crash.Status != 0:
		return crash.Status // the Go runtime's: 2 after a fatal panic, as the program would exit
	case errors.As(err, &crash), errors.Is(err, errReported):
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
