package lower

import (
	"go/ast"
	"sort"
)

// The front end type-checks a cell with only the earlier cells it can
// depend on, so a cell costs in proportion to what it uses, not to the
// session's length: the cells that declare a name the cell mentions, then
// the names those mention, and the methods of every type so included (a
// method set decides what a type implements). The selection can only err
// on the side of more cells: any identifier counts as a mention.

// sessionIndex is what the selection needs of the committed cells,
// maintained at Commit.
type sessionIndex struct {
	owner      map[string]int   // top-level name → the last committed cell declaring it
	methods    map[string][]int // type name → the committed cells declaring methods on it
	fmtMethods bool             // some committed cell declares a method fmt calls (fmtMethodNames)
	// For redefine.go, so that a cell does not walk the session's cells:
	typeAt    map[string]int    // type name → the last committed cell declaring it
	typeSeen  map[string]bool   // the non-generic type names committed cells declared
	methodAt  map[string]int    // "T.M" → the last committed cell declaring the method
	redefined map[string]string // redefinedTypes of the committed cells
}

func newSessionIndex() sessionIndex {
	return sessionIndex{owner: map[string]int{}, methods: map[string][]int{},
		typeAt: map[string]int{}, typeSeen: map[string]bool{}, methodAt: map[string]int{}, redefined: map[string]string{}}
}

// add records committed cell c (at index i of the session).
func (x *sessionIndex) add(i int, c *cell) {
	x.addTypes(c)
	for _, d := range c.allDecls() {
		if f, ok := d.(*ast.FuncDecl); ok && f.Recv != nil {
			if t := recvBase(f); t != "" {
				x.methods[t] = append(x.methods[t], i)
				x.methodAt[t+"."+f.Name.Name] = i
			}
			if fmtMethodNames[f.Name.Name] {
				x.fmtMethods = true
			}
		}
		for _, n := range declNames(d) { // a method's is "T.M"
			x.owner[n] = i
		}
	}
}

// allDecls are the cell's declarations and hoisted definitions.
func (c *cell) allDecls() []ast.Decl {
	out := append([]ast.Decl(nil), c.decls...)
	for _, h := range c.hoisted {
		out = append(out, h)
	}
	return out
}

// mentioned are the identifiers of the cell's declarations (with body,
// its statements too), computed once for a committed cell.
func (c *cell) mentioned(body bool) map[string]bool {
	if c.mentions != nil && !body {
		return c.mentions
	}
	m := map[string]bool{}
	visit := func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			m[id.Name] = true
		}
		return true
	}
	for _, d := range c.allDecls() {
		ast.Inspect(d, visit)
	}
	if body {
		ast.Inspect(c.body, visit)
		return m
	}
	c.mentions = m
	return m
}

// relevant returns, in session order, the committed cells that cell c can
// depend on.
func (s *Session) relevant(c *cell) []*cell {
	seen := map[int]bool{}
	var queue []string
	push := func(names map[string]bool) {
		for n := range names {
			queue = append(queue, n)
		}
	}
	include := func(i int) {
		if !seen[i] {
			seen[i] = true
			c := s.cells[i]
			if c.mentions == nil {
				c.mentions = s.syntax(c).mentioned(false)
			}
			push(c.mentions)
		}
	}
	push(c.mentioned(true))
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if i, ok := s.index.owner[n]; ok && !seen[i] {
			include(i)
			for _, m := range s.index.methods[n] {
				include(m)
			}
		}
	}
	idx := make([]int, 0, len(seen))
	for i := range seen {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]*cell, len(idx))
	for k, i := range idx {
		out[k] = s.cells[i]
	}
	return out
}
