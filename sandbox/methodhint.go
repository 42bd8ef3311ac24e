package sandbox

import (
	"strconv"
	"strings"
	"sync"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/replhost/replhost/lower"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// The show wrappers (showMethods) only matter for a value of an interpreted
// type with an Error or String method: a native value reaches the host with
// its methods. Trying them costs two compiles that fail for every other
// value, and yaegi (v0.16.1) keeps ~10 KB of each failed compile for the
// session's life. So they are tried only once the session may hold such a
// type: it declared a method, a struct type (whose embedded field may bring
// one) or imported a package that is not standard (an upload).

// noteMethods looks at the units about to run for what may give an
// interpreted type methods.
func (in *Interp) noteMethods(units []unit) {
	if in.methods {
		return
	}
	for i := range units {
		if u := &units[i]; u.imports && importsNonStd(u) || mayGiveMethods(u.text) {
			in.methods = true
			return
		}
	}
}

// mayGiveMethods reports a method declaration or a struct type in text,
// generously: a func literal with a space before its parameters counts.
func mayGiveMethods(text string) bool {
	if strings.Contains(text, "struct") {
		return true
	}
	for rest := text; ; {
		i := strings.Index(rest, "func")
		if i < 0 {
			return false
		}
		after := strings.TrimLeft(rest[i+len("func"):], " \t\n")
		if strings.HasPrefix(after, "(") && (i == 0 || !isIdentByte(rest[i-1])) {
			// func (recv T) Name( or a func literal: a method has a name
			// and its parameters (or type parameters) after the receiver.
			if close := strings.IndexByte(after, ')'); close >= 0 {
				next := strings.TrimLeft(after[close+1:], " \t")
				if next != "" && isIdentStart(next[0]) {
					name := strings.TrimLeftFunc(next, func(r rune) bool { return r < 0x80 && isIdentByte(byte(r)) || r >= 0x80 })
					if name = strings.TrimLeft(name, " \t"); strings.HasPrefix(name, "(") || strings.HasPrefix(name, "[") {
						return true
					}
				}
			}
		}
		rest = rest[i+len("func"):]
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// importsNonStd reports an import unit with a path that is no standard
// package yaegi or the front end has symbols for.
func importsNonStd(u *unit) bool {
	specs, ok := u.importSpecs()
	if !ok {
		return true
	}
	std := stdPaths()
	for _, spec := range specs {
		path, _ := strconv.Unquote(spec.Path.Value)
		if !std[path] {
			return true
		}
	}
	return false
}

// stdPaths are the import paths of the standard symbol tables.
var stdPaths = sync.OnceValue(func() map[string]bool {
	paths := map[string]bool{}
	for _, tables := range []interp.Exports{stdlib.Symbols, lower.Symbols} {
		for key := range tables {
			if path, _, ok := yaegix.SplitKey(key); ok {
				paths[path] = true
			}
		}
	}
	return paths
})
