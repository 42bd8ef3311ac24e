package pkgname_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/replhost/replhost/internal/pkgname"
	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func TestGuess(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{"std", "fmt", "fmt"},
		{"std-nested", "encoding/json", "json"},
		{"major-version", "math/rand/v2", "rand"},
		{"major-version-module", "github.com/google/go-github/v62", "github"},
		{"gopkg-in", "gopkg.in/yaml.v3", "yaml"},
		{"go-prefix", "example.com/go-foo", "foo"},
		{"go-prefix-digits", "github.com/mattn/go-sqlite3", "sqlite3"},
		{"dash", "example.com/foo-bar", "foo"},
		{"dot", "example.com/foo.bar", "foo"},
		{"domain-only", "example.com", "example"},
		{"v-word", "example.com/vendor", "vendor"},
		{"lone-v", "example.com/v", "v"},
		{"only-version", "v2", "v2"},
		{"upload", "greet", "greet"},
		{"unicode", "example.com/ĉapelo", "ĉapelo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pkgname.Guess(tt.path); got != tt.want {
				t.Errorf("Guess(%q) = %q; want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestGuessIsTheInterpretersName: for every package of yaegi's and the
// front end's symbol tables, the rule gives the name yaegi binds (the
// key's).
func TestGuessIsTheInterpretersName(t *testing.T) {
	n := 0
	for _, table := range []interp.Exports{stdlib.Symbols, lower.Symbols} {
		for key := range table {
			path, name, ok := yaegix.SplitKey(key)
			if !ok {
				continue
			}
			n++
			if got := pkgname.Guess(path); got != name {
				t.Errorf("Guess(%q) = %q; yaegi names it %q", path, got, name)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d packages in the symbol tables", n)
	}
}

func TestOf(t *testing.T) {
	// Uploads whose directories are not named after their package clauses.
	uploads := map[string]string{"greet-lib": "greet", "example.com/utils": "util"}
	clause := func(path string) string { return uploads[path] }
	tests := []struct {
		name, spec string
		clause     pkgname.Clause
		want       string
	}{
		{"named", `j "encoding/json"`, clause, "j"},
		{"blank", `_ "embed"`, clause, "_"},
		{"dot", `. "math"`, clause, "."},
		{"named-beats-clause", `g "greet-lib"`, clause, "g"},
		{"clause", `"greet-lib"`, clause, "greet"},
		{"clause-not-path", `"example.com/utils"`, clause, "util"},
		{"clause-unknown", `"gopkg.in/yaml.v3"`, clause, "yaml"},
		{"no-clause", `"example.com/utils"`, nil, "utils"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pkgname.Of(importSpec(t, tt.spec), tt.clause); got != tt.want {
				t.Errorf("Of(%s) = %q; want %q", tt.spec, got, tt.want)
			}
		})
	}
}

func importSpec(tb testing.TB, spec string) *ast.ImportSpec {
	tb.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p; import "+spec, parser.ImportsOnly)
	if err != nil {
		tb.Fatal(err)
	}
	return f.Imports[0]
}
