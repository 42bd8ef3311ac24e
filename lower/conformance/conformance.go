// Package conformance runs the lower package's conformance suite: Go
// scripts (imports, declarations and statements in any order, as a user
// pipes them to `ssh host < prog.go`) with the output `go run` gives for the
// same code as a program. The runner takes the evaluator as a function, so
// the same cases run through lower plus yaegi in a unit test, through plain
// yaegi for comparison, or end to end through the SSH server.
package conformance

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/replhost/replhost/lower"
)

//go:generate go run ../internal/genconf ../testdata/conformance

// Case is one script and the output `go run` prints for it.
type Case struct {
	Name   string // file name without .txt
	Script string
	Want   string
}

// Load reads every NAME.txt (a script) with its NAME.out from dir, sorted by name.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		script, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		want, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".out")
		if err != nil {
			return nil, fmt.Errorf("expected output: %w", err)
		}
		cases = append(cases, Case{Name: strings.TrimSuffix(filepath.Base(f), ".txt"), Script: string(script), Want: string(want)})
	}
	return cases, nil
}

// Result is the outcome of one case.
type Result struct {
	Case Case
	Got  string
	Err  error // the evaluator's error, if any
}

// Pass reports whether the case printed exactly what `go run` printed,
// without error.
func (r Result) Pass() bool { return r.Err == nil && r.Got == r.Case.Want }

// Reason says briefly why a case failed.
func (r Result) Reason() string {
	if r.Err != nil {
		return firstLine(r.Err.Error())
	}
	if r.Got != r.Case.Want {
		return fmt.Sprintf("output differs: got %q; want %q", clip(r.Got), clip(r.Case.Want))
	}
	return ""
}

// Run evaluates every case with eval, which runs one script and returns
// what it printed.
func Run(cases []Case, eval func(script string) (string, error)) []Result {
	results := make([]Result, len(cases))
	for i, c := range cases {
		got, err := eval(c.Script)
		results[i] = Result{Case: c, Got: got, Err: err}
	}
	return results
}

// Passed counts the passing results.
func Passed(results []Result) int {
	n := 0
	for _, r := range results {
		if r.Pass() {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return clip(s)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Program turns a script into the program `go run` runs for it: the
// imports, then the declarations, then the statements as the body of main.
func Program(script string) string {
	var imports, decls, stmts []string
	for _, piece := range lower.Split(script) {
		switch kindOf(piece) {
		case "import":
			imports = append(imports, piece)
		case "decl":
			decls = append(decls, piece)
		default:
			stmts = append(stmts, piece)
		}
	}
	var b strings.Builder
	b.WriteString("package main\n\n")
	for _, s := range imports {
		b.WriteString(s + "\n")
	}
	for _, s := range decls {
		b.WriteString(s + "\n\n")
	}
	b.WriteString("func main() {\n")
	for _, s := range stmts {
		b.WriteString(s + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func kindOf(piece string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+piece, parser.SkipObjectResolution)
	if err != nil || len(f.Decls) == 0 {
		return "stmt"
	}
	if g, ok := f.Decls[0].(*ast.GenDecl); ok && g.Tok == token.IMPORT {
		return "import"
	}
	return "decl"
}

// LoadKnownFailures reads a list of NAME<TAB>WHY lines (# starts a comment
// line): the cases of a suite known to fail, which a test asserts exactly.
func LoadKnownFailures(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	known := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, _ := strings.Cut(line, "\t")
		known[name] = why
	}
	return known, nil
}

// Racy marks a known failure whose outcome depends on scheduling (a data
// race inside yaegi itself, which the front end cannot reach): such a case
// still runs, and either outcome is accepted, so the suite stays exact
// without asserting on timing.
const Racy = "racy: "

// CheckKnown compares results with the known failures: a case that fails
// and is not listed, and one listed that now passes, are both reported.
func CheckKnown(results []Result, known map[string]string) (problems []string) {
	for _, r := range results {
		why, wasKnown := known[r.Case.Name]
		switch {
		case wasKnown && strings.HasPrefix(why, Racy):
		case !r.Pass() && !wasKnown:
			problems = append(problems, fmt.Sprintf("new failure %s: %s", r.Case.Name, r.Reason()))
		case r.Pass() && wasKnown:
			problems = append(problems, fmt.Sprintf("now passes %s: remove it from the known failures", r.Case.Name))
		}
	}
	return problems
}
