package lower

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// lowerCtx is the state of one Lower call: what the cell's rewriting adds
// around it (declarations, imports) and the first limitation met.
type lowerCtx struct {
	s       *Session
	chk     *checked
	pkgName map[string]string // import path → name the cell sees it by
	aliases map[string]string // import path → name of an import we add
	decls   []string          // added declarations, dependencies first
	defined map[string]bool   // names of added declarations defined by this cell
	added   []string
	tmp     int
	err     error
	sites   map[string]*site // generic declarations of the session's cells
	local   localInsts       // instances declared inside the cell's functions
	// cellDefers says the cell has top-level defers: its statements start
	// by clearing the list and end by running it.
	cellDefers bool
	redefined  map[string]string // see redefine.go; nil until asked
}

func newLowerCtx(s *Session, chk *checked) *lowerCtx {
	ctx := &lowerCtx{s: s, chk: chk, pkgName: map[string]string{}, aliases: map[string]string{}, defined: map[string]bool{}}
	for name, path := range chk.cur.importSet {
		if _, virtual := virtualPkgs[path]; virtual {
			continue
		}
		if old, ok := ctx.pkgName[path]; !ok || name < old {
			ctx.pkgName[path] = name
		}
	}
	return ctx
}

// fail records a limitation of the lowering; the cell is then handed to
// the interpreter unchanged.
func (ctx *lowerCtx) fail(err error) {
	if ctx.err == nil {
		ctx.err = err
	}
}

// name returns a fresh identifier for a temporary.
func (ctx *lowerCtx) name(prefix string) string {
	ctx.tmp++
	return "ʟ" + prefix + strconv.Itoa(ctx.tmp)
}

// qualify returns the name by which the lowered cell refers to package
// path, adding an import when the cell has none.
func (ctx *lowerCtx) qualify(path string) string {
	if n, ok := ctx.pkgName[path]; ok {
		return n
	}
	if n, ok := ctx.aliases[path]; ok {
		return n
	}
	n := "ʟ" + mangle(path)
	ctx.aliases[path] = n
	return n
}

// declare adds a declaration named name to the lowered cell unless the
// session already holds it; text is called only when it is needed, after
// the name is reserved (so recursive declarations terminate).
func (ctx *lowerCtx) declare(name string, text func() string) {
	if ctx.s.emitted[name] || ctx.defined[name] {
		return
	}
	ctx.defined[name] = true
	ctx.added = append(ctx.added, name)
	ctx.decls = append(ctx.decls, text())
}

// mangle turns s into identifier characters; a hash keeps distinct inputs
// apart when characters had to be dropped.
func mangle(s string) string {
	var b strings.Builder
	clean := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '.' || r == '/':
			b.WriteByte('_')
			clean = clean && true
		default:
			clean = false
		}
	}
	if !clean || b.Len() > 40 {
		return fmt.Sprintf("%.24s_%s", b.String(), shortHash(s))
	}
	return b.String()
}

func shortHash(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}
