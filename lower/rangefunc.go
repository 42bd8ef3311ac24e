package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// rfLoop is a range-over-func loop being lowered to a call of the iterator
// with the loop body as the yield function:
//
//	for k, v := range seq { body }
//	→ if true { var ʟnx int; seq(func(k K, v V) bool { body'; return true }); dispatch }
//
// In body', continue becomes `return true` and break `return false`. A jump
// out of the body (break or continue of an outer loop, return) stores a code
// in ʟnx, returns false, and the dispatch after the call performs it, in
// turn lowered if an enclosing range-over-func loop still surrounds it.
type rfLoop struct {
	node     *ast.RangeStmt
	nx       string         // name of the jump-code variable
	codes    map[string]int // jump → code
	dispatch []string
}

// code returns the code of a jump out of the loop, registering once the
// statement (then) that the dispatch performs for it.
func (l *rfLoop) code(key string, then func() string) int {
	if c, ok := l.codes[key]; ok {
		return c
	}
	c := len(l.codes) + 1
	l.codes[key] = c
	l.dispatch = append(l.dispatch, "if "+l.nx+" == "+strconv.Itoa(c)+" { "+then()+" }")
	return c
}

func (r *rewriter) isRangeFunc(n *ast.RangeStmt) bool {
	t := r.typeOf(n.X)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func (r *rewriter) enterRangeFunc(n *ast.RangeStmt) {
	f := r.fn()
	f.rf = append(f.rf, &rfLoop{node: n, nx: r.ctx.name("nx"), codes: map[string]int{}})
}

func (r *rewriter) rangeFunc(n *ast.RangeStmt) {
	f := r.fn()
	loop := f.rf[len(f.rf)-1]
	f.rf = f.rf[:len(f.rf)-1]

	yield := r.typeOf(n.X).Underlying().(*types.Signature).Params().At(0).Type().Underlying().(*types.Signature)
	var params []string
	prologue := ""
	for i := range yield.Params().Len() {
		pt := r.ctx.typeText(yield.Params().At(i).Type(), r.subst)
		var e ast.Expr
		if i == 0 {
			e = n.Key
		} else if i == 1 {
			e = n.Value
		}
		id, _ := e.(*ast.Ident)
		switch {
		case e == nil || id != nil && id.Name == "_":
			params = append(params, "_ "+pt)
		case n.Tok == token.DEFINE:
			params = append(params, id.Name+" "+pt)
		default:
			p := r.ctx.name("p")
			params = append(params, p+" "+pt)
			prologue += " " + r.nodeText(e) + " = " + p + ";"
		}
	}
	var decls []string
	if len(loop.dispatch) > 0 {
		decls = append(decls, "var "+loop.nx+" int")
	}
	if len(f.rf) == 0 { // outermost: declare what jumps out of the function need
		for i, v := range f.retVars {
			decls = append(decls, "var "+v+" "+r.ctx.typeText(f.sig.Results().At(i).Type(), r.subst))
		}
		f.retVars = nil
	}
	start := r.off(n.Pos())
	if l, ok := r.parent().(*ast.LabeledStmt); ok {
		start = r.off(l.Pos()) // every jump to the label was lowered
	}
	call := r.nodeText(n.X) + "(func(" + strings.Join(params, ", ") + ") bool {" + prologue
	end := "; return true\n})" // "; ": the body may end on the brace's line
	if len(decls) > 0 || len(loop.dispatch) > 0 {
		call = "if true { " + strings.Join(append(decls, ""), "; ") + call
		end += "; " + strings.Join(append(loop.dispatch, ""), "; ") + "}"
	}
	r.replace(start, r.off(n.Body.Lbrace)+1, call)
	r.replace(r.off(n.Body.Rbrace), r.off(n.Body.Rbrace)+1, end)
}

// jump returns the lowering of a jump made inside the level innermost
// range-over-func loops of the function; the loops below minLevel enclose
// its target too, so at minLevel the jump is plain.
func (r *rewriter) jump(key, plain string, target ast.Node, level, minLevel int) string {
	if level == minLevel {
		return plain
	}
	loop := r.fn().rf[level-1]
	if loop.node == target {
		if strings.HasPrefix(key, "continue") {
			return "return true"
		}
		return "return false"
	}
	c := loop.code(key, func() string { return r.jump(key, plain, target, level-1, minLevel) })
	return loop.nx + " = " + strconv.Itoa(c) + "; return false"
}

func (r *rewriter) branch(n *ast.BranchStmt) {
	f := r.fn()
	if len(f.rf) == 0 || n.Tok == token.GOTO || n.Tok == token.FALLTHROUGH {
		return
	}
	var target ast.Node
	for i := len(r.stack) - 2; i >= 0 && target == nil; i-- {
		switch s := r.stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			i = -1
		case *ast.LabeledStmt:
			if n.Label != nil && s.Label.Name == n.Label.Name {
				target = s.Stmt
			}
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Label == nil {
				target = s
			}
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if n.Label == nil && n.Tok == token.BREAK {
				target = s
			}
		}
	}
	if target == nil {
		return
	}
	minLevel := -1
	for i, l := range f.rf {
		if l.node.Pos() >= target.Pos() && l.node.End() <= target.End() {
			minLevel = i
			break
		}
	}
	if minLevel < 0 {
		return
	}
	plain := n.Tok.String()
	key := plain
	if n.Label != nil {
		plain += " " + n.Label.Name
		key += " " + n.Label.Name
	}
	r.replaceNode(n, "{ "+r.jump(key, plain, target, len(f.rf), minLevel)+" }")
}

func (r *rewriter) returnStmt(n *ast.ReturnStmt) {
	f := r.fn()
	if len(f.rf) == 0 {
		return
	}
	store := ""
	plain := "return"
	if f.sig != nil && f.sig.Results().Len() > 0 && f.results == nil {
		if f.retVars == nil {
			for range f.sig.Results().Len() {
				f.retVars = append(f.retVars, r.ctx.name("r"))
			}
		}
		plain = "return " + strings.Join(f.retVars, ", ")
	}
	if len(n.Results) > 0 {
		vals := make([]string, len(n.Results))
		for i, e := range n.Results {
			vals[i] = r.nodeText(e)
		}
		dst := f.retVars
		if f.results != nil {
			dst = f.results
		}
		store = strings.Join(dst, ", ") + " = " + strings.Join(vals, ", ") + "; "
	}
	r.replaceNode(n, "{ "+store+r.jump("return", plain, nil, len(f.rf), 0)+" }")
}

// deferStmt lowers a defer that neither deferList nor deferChain took: at
// a cell's top level (cellDefer), else its values are bound now (deferArgs).
func (r *rewriter) deferStmt(n *ast.DeferStmt) {
	if r.subst == nil && len(r.fns) == 1 {
		r.cellDefer(n)
		return
	}
	r.deferArgs(n)
}
