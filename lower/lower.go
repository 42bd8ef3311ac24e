package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// lowerCell rewrites the current cell of chk; it returns the code for the
// interpreter, the map from it back to the cell (nil: unchanged) and the
// names of the declarations it added. The output is,
// when anything changed: the imports, then every declaration (the added
// helpers and instances first), then the statements in their order, which
// is what `go run` does with the same code as a program. A cell whose
// declarations use variables its own statements define keeps its order
// for those declarations (declsFirst).
func lowerCell(s *Session, chk *checked) (string, *SourceMap, []string, error) {
	c := chk.cur
	if err := s.refuseMethodRedefinition(c); err != nil {
		return "", nil, nil, err // see redefine.go
	}
	if err := s.refusePromoted(chk); err != nil {
		return "", nil, nil, err // see ifacepromote.go
	}
	ctx := newLowerCtx(s, chk)
	r := newRewriter(ctx, &code{src: c.src, off: c.offset, info: chk.info, mark: !hasMarks(c.src)}, nil)
	r.facts = collectFacts(chk.info, c.file)
	for _, d := range c.hoisted {
		r.facts.merge(collectFacts(chk.info, d))
	}

	drop := map[int]bool{} // units left out of the output
	changed := false
	for _, d := range c.imports {
		virtual := 0
		for _, sp := range d.Specs {
			sp := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(sp.Path.Value)
			if ctx.dropsImport(path) {
				virtual++
				// With the semicolon after it: `import ("fmt"; "maps"; "os")`
				// must not become `"fmt"; ; "os"`, which does not parse.
				end := r.off(sp.End())
				for end < len(r.code.src) && (r.code.src[end] == ' ' || r.code.src[end] == '\t') {
					end++
				}
				if end < len(r.code.src) && r.code.src[end] == ';' {
					r.replace(r.off(sp.Pos()), end+1, "")
				} else {
					r.replaceNode(sp, "")
				}
			}
		}
		if virtual > 0 {
			changed = true
			if virtual == len(d.Specs) {
				drop[c.unitOf[d]] = true
			}
		}
	}
	for _, d := range c.decls {
		if isGenericDecl(d) {
			drop[c.unitOf[d]] = true
			changed = true
			continue
		}
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				if ts := sp.(*ast.TypeSpec); ts.TypeParams != nil {
					r.replaceNode(ts, "")
					changed = true
				}
			}
		}
		r.walk(d)
	}
	for _, d := range c.hoisted {
		r.walk(d)
	}
	r.initOrder(c, chk.info)
	r.registerInstances() // fmtregistry.go
	for _, st := range c.body.List {
		r.wrapped = needsFuncScope(st, chk.info, chk.pkg)
		r.walk(st)
		r.showExpr(st)
		if r.wrapped {
			// A named function: yaegi runs a function literal called at
			// top level again in later Evals.
			fn := ctx.name("stmt")
			r.insert(r.off(st.Pos()), "func "+fn+"() {\n")
			r.insert(r.off(st.End()), "\n}\n"+fn+"()")
			s.noteCall(fn + "()")
		}
		r.wrapped = false
	}
	ctx.insertLocal(r)
	if ctx.err != nil {
		return string(c.src), nil, nil, nil // a limitation: let the interpreter judge the cell
	}
	changed = changed || len(r.edits) > 0 || len(ctx.decls) > 0 || len(ctx.aliases) > 0

	order := make([]int, len(c.units))
	for i := range order {
		order[i] = i
	}
	stmtFirst := false
	for i, u := range c.units {
		if u.kind == unitStmt {
			for _, v := range c.units[i+1:] {
				stmtFirst = stmtFirst || v.kind != unitStmt
			}
			break
		}
	}
	if !changed && !stmtFirst {
		return string(c.src), nil, nil, nil
	}
	if stmtFirst && declsUseCellVars(c, chk.info) {
		declsFirst(c, chk.info, order) // the cell keeps its order (see varinitref.go)
	} else if stmtFirst {
		sort.SliceStable(order, func(i, j int) bool { return c.units[order[i]].kind < c.units[order[j]].kind })
	}

	var b strings.Builder
	added := false
	addDecls := func() {
		if added {
			return
		}
		added = true
		for _, d := range ctx.decls {
			b.WriteString(d)
			b.WriteString("\n")
		}
	}
	paths := make([]string, 0, len(ctx.aliases))
	for p := range ctx.aliases {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b.WriteString("import " + ctx.aliases[p] + " " + strconv.Quote(p) + "\n")
	}
	cleared := false
	for _, i := range order {
		u := c.units[i]
		if u.kind != unitImport {
			addDecls()
		}
		if drop[i] {
			continue
		}
		if u.kind == unitStmt && ctx.cellDefers && !cleared {
			b.WriteString(cellDefersVar + " = nil\n")
			cleared = true
		}
		b.WriteString(r.text(u.start, u.end))
		b.WriteString("\n")
	}
	addDecls()
	if ctx.cellDefers {
		b.WriteString(cellDefersVar + " = " + cellDefersRun + "(" + cellDefersVar + ")\n")
	}
	out, m := stripMarks(b.String(), c.src)
	return out, m, ctx.added, nil
}

// isGenericDecl reports a function with type parameters, a method of a
// generic type, or a type declaration all of whose specs are generic.
func isGenericDecl(d ast.Decl) bool {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Type.TypeParams != nil {
			return true
		}
		if d.Recv != nil && len(d.Recv.List) > 0 {
			t := d.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if p, ok := t.(*ast.ParenExpr); ok {
				t = p.X
			}
			switch t.(type) {
			case *ast.IndexExpr, *ast.IndexListExpr:
				return true
			}
		}
	case *ast.GenDecl:
		if d.Tok != token.TYPE {
			return false
		}
		for _, s := range d.Specs {
			if s.(*ast.TypeSpec).TypeParams == nil {
				return false
			}
		}
		return len(d.Specs) > 0
	}
	return false
}

// declsUseCellVars reports whether a declaration of the cell refers to a
// variable that a statement of the same cell defines.
func declsUseCellVars(c *cell, info *types.Info) bool {
	vars := map[types.Object]bool{}
	for _, d := range c.hoisted {
		for _, n := range d.Specs[0].(*ast.ValueSpec).Names {
			if o := info.Defs[n]; o != nil {
				vars[o] = true
			}
		}
	}
	if len(vars) == 0 {
		return false
	}
	found := false
	for _, d := range c.decls {
		ast.Inspect(d, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && vars[info.Uses[id]] {
				found = true
			}
			return !found
		})
	}
	return found
}
