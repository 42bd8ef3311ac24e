package gotestdir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"go/build/constraint"
	"go/parser"
	"go/token"
)

// A Corpus is a set of test programs with its own truth and failure lists:
// Go's test directory, or yaegi's own _test programs (the second suite of
// issue 16: nothing plain yaegi passes may fail through replhost).
type Corpus struct {
	Name    string // "go" or "yaegi"
	Title   string // where the programs come from, for the files' headers
	Testdir string // where its files of results live, below testdata/
	// Find returns the folder the programs are read from.
	Find func() (string, error)
	// Select lists its cases in that folder, sorted by name.
	Select func(dir string) ([]Case, error)
}

// Corpora are the two suites, by name.
var Corpora = map[string]Corpus{
	"go":    {Name: "go", Title: "$(go env GOROOT)/test", Testdir: "testdata", Find: goroot, Select: Select},
	"yaegi": {Name: "yaegi", Title: "_test of go.mod's yaegi", Testdir: "testdata/yaegi", Find: yaegiTestDir, Select: SelectYaegi},
}

// TruthFile is where the corpus's truth for the running toolchain is kept.
func (c Corpus) TruthFile() string { return TruthFile(c.Testdir) }

// FailuresFile lists every failing case through replhost, with its cause.
func (c Corpus) FailuresFile() string {
	return filepath.Join(c.Testdir, "failures-"+runtime.Version()+".txt")
}

// PlainFile lists every case plain `yaegi run` (go.mod's version) fails.
func (c Corpus) PlainFile() string {
	return filepath.Join(c.Testdir, "plain-yaegi-failures-"+runtime.Version()+".txt")
}

// BehindFile lists the cases plain yaegi passes and replhost fails, with
// why; the aim is an empty file.
func (c Corpus) BehindFile() string {
	return filepath.Join(c.Testdir, "behind-plain-yaegi-"+runtime.Version()+".txt")
}

func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	return strings.TrimSpace(string(out)) + "/test", nil
}

// yaegiTestDir is the _test folder of the yaegi module go.mod requires,
// from the module cache (go list downloads it when missing).
func yaegiTestDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/traefik/yaegi").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/traefik/yaegi: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "_test")
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// SelectYaegi lists the package main programs at the top of yaegi's _test
// folder that import only the standard library and whose build
// constraints hold on linux/amd64. (The others import the folder's own
// packages, or yaegi itself, from a GOPATH laid out for yaegi's tests.)
// Those that read files beside them or are meant to fail do not exit 0
// under the toolchain, so the truth leaves them out.
func SelectYaegi(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		header, _, ok := strings.Cut(string(src), "\npackage main\n")
		if !ok && !strings.HasPrefix(string(src), "package main\n") {
			continue
		}
		if !constraintsHold(header) || !stdOnly(f, src) {
			continue
		}
		sum := sha256.Sum256(src)
		cases = append(cases, Case{Name: filepath.Base(f), Path: f, Src: src, Hash: hex.EncodeToString(sum[:])})
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// stdOnly reports whether every import of the file is a standard package
// (its first element has no dot).
func stdOnly(name string, src []byte) bool {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return true // the toolchain's verdict is the truth's
	}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
			return false
		}
	}
	return true
}

// constraintsHold evaluates the build constraint lines of a file's header.
func constraintsHold(header string) bool {
	for _, line := range strings.Split(header, "\n") {
		if expr, err := constraint.Parse(line); err == nil && !expr.Eval(matchTag) {
			return false
		}
	}
	return true
}
