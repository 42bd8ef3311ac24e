package sandbox

import (
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/replhost/replhost/internal/pkgname"
	"github.com/replhost/replhost/internal/yaegix"
)

// nameIndex remembers what a session declared and imported, for completion.
// yaegi v0.16.1 does not list a scope's symbols, so the names are read from
// the cells that ran.
type nameIndex struct {
	mu      sync.Mutex
	names   map[string]bool   // top-level identifiers
	imports map[string]string // local package name → import path
	clause  pkgname.Clause    // the package clause of an upload; nil: none known
}

func newNameIndex() *nameIndex {
	return &nameIndex{names: map[string]bool{}, imports: map[string]string{}}
}

func (x *nameIndex) learn(u unit) {
	if !u.parsed && parseUnit(nil, &u) != nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if u.kind == unitDecl {
		for _, d := range u.decls {
			x.learnDecl(d)
		}
		return
	}
	for _, st := range u.stmts {
		switch s := st.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for _, e := range s.Lhs {
					if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
						x.names[id.Name] = true
					}
				}
			}
		case *ast.DeclStmt:
			x.learnDecl(s.Decl)
		}
	}
}

func (x *nameIndex) learnDecl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			x.names[d.Name.Name] = true
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.ImportSpec:
				path, _ := strconv.Unquote(s.Path.Value)
				x.imports[pkgname.Of(s, x.clause)] = path
			case *ast.TypeSpec:
				x.names[s.Name.Name] = true
			case *ast.ValueSpec:
				for _, id := range s.Names {
					x.names[id.Name] = true
				}
			}
		}
	}
}

var goWords = strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if
import interface map package range return select struct switch type var
append cap close complex copy delete imag len make new panic print println real recover
bool byte complex128 complex64 error float32 float64 int int16 int32 int64 int8 rune string
uint uint16 uint32 uint64 uint8 uintptr any comparable true false nil iota`)

// Complete returns the completions of word, the identifier (or pkg.Member)
// ending at the cursor: keywords, builtins, the session's own names, its
// imported packages and their members, and importable package paths inside
// an import string.
func (in *Interp) Complete(word string) []string {
	x := in.names
	x.mu.Lock()
	defer x.mu.Unlock()
	var cands []string
	if prefix, ok := strings.CutPrefix(word, `"`); ok {
		// Inside an import string: the importable standard packages.
		for _, p := range in.packagePaths() {
			if strings.HasPrefix(p, prefix) {
				cands = append(cands, `"`+p)
			}
		}
		return cands
	}
	if pkg, member, ok := strings.Cut(word, "."); ok {
		if path, ok := x.imports[pkg]; ok {
			for _, m := range packageMembers(in.exports, path) {
				if strings.HasPrefix(m, member) {
					cands = append(cands, pkg+"."+m)
				}
			}
		}
		return cands
	}
	add := func(s string) {
		if strings.HasPrefix(s, word) {
			cands = append(cands, s)
		}
	}
	for _, w := range goWords {
		add(w)
	}
	for n := range x.names {
		add(n)
	}
	for n := range x.imports {
		add(n)
	}
	for _, p := range in.packagePaths() {
		add(pkgname.Guess(p)) // a standard package not imported yet
	}
	sort.Strings(cands)
	return dedupe(cands)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// packagePaths lists the standard packages the session may import, sorted.
func (in *Interp) packagePaths() []string {
	paths := make([]string, 0, len(in.exports))
	for key := range in.exports {
		if path, _, ok := yaegix.SplitKey(key); ok && !strings.HasPrefix(key, "replhost.internal") {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	return paths
}
