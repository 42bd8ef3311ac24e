// Package pkgname is the one rule for the name by which code refers to an
// imported package, shared by the front end (lower), the interpreter's
// side (sandbox: re-imports, completion) and whatever else reads imports.
package pkgname

import (
	"go/ast"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clause reports the package clause of the package at path ("" when it is
// not known): the truth for a source package (an upload), whose directory
// need not be named after it. Go, go/types and yaegi all take the clause.
type Clause func(path string) string

// Of is the name a file with spec refers to the package by: the spec's own
// name if it has one ("_" and "." included), else the package's clause when
// clause knows it (clause may be nil), else Guess(path).
func Of(spec *ast.ImportSpec, clause Clause) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	path, err := strconv.Unquote(spec.Path.Value)
	if err != nil {
		return ""
	}
	return ForPath(path, clause)
}

// ForPath is Of for an import of path that names no package.
func ForPath(path string, clause Clause) string {
	if clause != nil {
		if name := clause(path); name != "" {
			return name
		}
	}
	return Guess(path)
}

// Guess is the name of the package at path by convention, for when its
// clause is not known: the last element of path, the one before it if that
// is a major version ("math/rand/v2": rand), without a "go-" prefix and cut
// at the first character no identifier has ("gopkg.in/yaml.v3": yaml,
// "github.com/mattn/go-sqlite3": sqlite3). It is goimports' rule
// (ImportPathToAssumedName, internal to golang.org/x/tools, hence written
// here); every standard package's name follows it.
func Guess(path string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	if isMajorVersion(base) {
		if dir := strings.LastIndex(path, "/"); dir > 0 {
			prev := path[:dir]
			base = prev[strings.LastIndex(prev, "/")+1:]
		}
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexFunc(base, notIdentifier); i >= 0 {
		base = base[:i]
	}
	return base
}

// isMajorVersion reports an element "vN" of digits N.
func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func notIdentifier(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
}
