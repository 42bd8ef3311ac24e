// Package gotestdir runs the Go distribution's own test programs
// ($(go env GOROOT)/test) as replhost scripts and compares them with the
// real toolchain: the selection of cases, the cached truth (what the
// compiled program prints and its exit status), and the classification of
// a case's outcome into a short cause.
package gotestdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/build"
	"go/build/constraint"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Dirs are the folders of GOROOT/test that Go's own runner
// (cmd/internal/testdir) walks, without the ones that hold no `// run`
// programs for linux/amd64.
var Dirs = []string{".", "ken", "chan", "interface", "fixedbugs", "abi", "typeparam", "typeparam/mdempsky"}

// Case is one test program.
type Case struct {
	Name string // path below GOROOT/test, slash-separated: "fixedbugs/bug123.go"
	Path string // absolute path
	Src  []byte
	Hash string // sha256 of Src, hex
}

// Select lists the single-file package main programs of dir (GOROOT/test)
// whose directive is exactly `// run` and whose build constraints hold on
// linux/amd64 without cgo, sorted by name.
func Select(dir string) ([]Case, error) {
	var cases []Case
	for _, d := range Dirs {
		files, err := filepath.Glob(filepath.Join(dir, d, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if !selected(src) {
				continue
			}
			sum := sha256.Sum256(src)
			name := filepath.ToSlash(filepath.Join(d, filepath.Base(f)))
			cases = append(cases, Case{Name: name, Path: f, Src: src, Hash: hex.EncodeToString(sum[:])})
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// selected applies Go's runner rules: the directive is the first line that
// is neither empty nor a build constraint, and constraints are read up to
// the package clause.
func selected(src []byte) bool {
	text := string(src)
	action := ""
	for rest := text; action == "" && rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if constraint.IsGoBuild(line) || constraint.IsPlusBuild(line) {
			continue
		}
		action = strings.TrimSpace(strings.TrimPrefix(line, "//"))
	}
	if action != "run" {
		return false
	}
	header, _, ok := strings.Cut(text, "\npackage")
	if !ok {
		return false
	}
	for _, line := range strings.Split(header, "\n") {
		if expr, err := constraint.Parse(line); err == nil && !expr.Eval(matchTag) {
			return false
		}
	}
	return bytes.Contains(src, []byte("\npackage main"))
}

// matchTag is cmd/internal/testdir's tag rule for linux/amd64, cgo off.
func matchTag(name string) bool {
	switch name {
	case "linux", "amd64", "gc", "test_run":
		return true
	case "cgo":
		return false
	}
	if slices.Contains(build.Default.ReleaseTags, name) {
		return true
	}
	if strings.HasPrefix(name, "goexperiment.") {
		return slices.Contains(build.Default.ToolTags, name)
	}
	return false
}
