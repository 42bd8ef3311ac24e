package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// selectAssign lowers a select case that receives into existing variables
// (`case x, ok = <-c:`), which yaegi v0.16.1 hands to reflect.Select with
// an invalid direction, into one that defines temporaries and assigns them
// first thing in the case's body.
func (r *rewriter) selectAssign(cc *ast.CommClause) {
	r.selectComm(cc)
	as, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return
	}
	if as.Tok == token.DEFINE {
		r.selectDefine(cc, as)
		return
	}
	tmps := make([]string, len(as.Lhs))
	lhs := make([]string, len(as.Lhs))
	for i, l := range as.Lhs {
		tmps[i] = r.ctx.name("recv")
		lhs[i] = r.nodeText(l)
	}
	rhs := r.nodeText(as.Rhs[0])
	r.replaceNode(as, strings.Join(tmps, ", ")+" := "+rhs)
	r.insert(r.off(cc.Colon)+1, " "+strings.Join(lhs, ", ")+" = "+strings.Join(tmps, ", ")+";")
}

// selectComm writes the typed value of a constant sent in a select case
// (`case c32 <- 123:`), which yaegi v0.16.1 hands to reflect.Select as an
// int, and drops the parentheses around a received value (`case x :=
// (<-c):`), which it refuses ("receive from non-chan type").
func (r *rewriter) selectComm(cc *ast.CommClause) {
	switch c := cc.Comm.(type) {
	case *ast.SendStmt:
		if tv := r.code.info.Types[c.Value]; tv.Value != nil {
			if ch, ok := r.typeOf(c.Chan).Underlying().(*types.Chan); ok {
				r.replaceNode(c.Value, r.constText(types.TypeAndValue{Type: ch.Elem(), Value: tv.Value}))
			}
		}
	case *ast.AssignStmt:
		if len(c.Rhs) == 1 {
			if p, ok := c.Rhs[0].(*ast.ParenExpr); ok {
				r.replaceNode(p, r.nodeText(ast.Unparen(p)))
			}
		}
	case *ast.ExprStmt:
		if p, ok := c.X.(*ast.ParenExpr); ok {
			r.replaceNode(p, r.nodeText(ast.Unparen(p)))
		}
	}
}

// selectDefine gives the variables a select case defines (`case x :=
// <-c:`) a fresh copy each time the case runs, as Go does: yaegi v0.16.1
// reuses one variable, which closures and pointers taken in an earlier
// run then share.
func (r *rewriter) selectDefine(cc *ast.CommClause, as *ast.AssignStmt) {
	var copies []string
	for _, l := range as.Lhs {
		id, _ := l.(*ast.Ident)
		if id == nil || id.Name == "_" {
			continue
		}
		if o := r.code.info.Defs[id]; o == nil || !r.facts.captured[o] {
			continue
		}
		hidden := r.ctx.name("recv")
		r.replaceNode(id, hidden)
		copies = append(copies, " "+id.Name+" := "+hidden+";")
	}
	if len(copies) > 0 {
		r.insert(r.off(cc.Colon)+1, strings.Join(copies, ""))
	}
}

// constShift gives the untyped constant of a non-constant shift
// (`1 << s`) the type the expression has in its context, as the spec
// says; yaegi v0.16.1 keeps it int.
func (r *rewriter) constShift(b *ast.BinaryExpr) {
	if b.Op != token.SHL && b.Op != token.SHR {
		return
	}
	r.shiftCount(b.Y)
	info := r.code.info
	tv, xv := info.Types[b], info.Types[b.X]
	if tv.Value != nil || xv.Value == nil || tv.Type == nil {
		return
	}
	t := r.concrete(tv.Type)
	if bt, ok := t.(*types.Basic); ok && (bt.Info()&types.IsUntyped != 0 || bt.Kind() == types.Int) {
		return // int is what yaegi gives it anyway
	}
	r.replaceNode(b.X, r.ctx.typeExprText(t, r.subst)+"("+r.nodeText(b.X)+")")
}

// constValues writes the value go/types computed for each constant of a
// declaration in place of its expression, and spells out the implicit
// repetition of a group (`const ( a, b = iota, iota * 2; c, d )`): yaegi
// v0.16.1 fails on some constant expressions (`string(iota + 'a')`,
// repeated lists: "constant definition loop"). A value that cannot be
// written exactly (an integer wider than 64 bits) keeps its expression:
// repeating the text instead gave yaegi's iota a wrong count.
func (r *rewriter) constValues(g *ast.GenDecl) {
	if g.Tok != token.CONST {
		return
	}
	var last *ast.ValueSpec
	for _, s := range g.Specs {
		vs := s.(*ast.ValueSpec)
		if len(vs.Values) > 0 {
			last = vs
		}
		if vals, ok := r.constLits(vs); ok {
			text := strings.Join(vals, ", ")
			if len(vs.Values) > 0 {
				r.replace(r.off(vs.Values[0].Pos()), r.off(vs.Values[len(vs.Values)-1].End()), text)
			} else {
				typ := ""
				if last != nil && last.Type != nil {
					typ = " " + r.nodeText(last.Type)
				}
				r.insert(r.off(vs.Names[len(vs.Names)-1].End()), typ+" = "+text)
			}
		}
	}
}

// constLits are the constants of vs as literals, if all can be written
// exactly.
func (r *rewriter) constLits(vs *ast.ValueSpec) ([]string, bool) {
	out := make([]string, len(vs.Names))
	for i, n := range vs.Names {
		c, ok := r.code.info.Defs[n].(*types.Const)
		if !ok {
			return nil, false
		}
		switch c.Val().Kind() {
		case constant.Int:
			if _, exact := constant.Int64Val(c.Val()); !exact {
				return nil, false // yaegi holds no wider integer literal
			}
		case constant.String, constant.Bool:
		case constant.Float:
			if b, ok := c.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				// Exactly, as a quotient, or not at all.
				num, ok1 := constant.Int64Val(constant.Num(c.Val()))
				den, ok2 := constant.Int64Val(constant.Denom(c.Val()))
				if !ok1 || !ok2 {
					return nil, false
				}
				out[i] = "(" + strconv.FormatInt(num, 10) + ".0 / " + strconv.FormatInt(den, 10) + ".0)"
				continue
			}
		default:
			return nil, false
		}
		out[i] = r.constText(types.TypeAndValue{Type: c.Type(), Value: c.Val()})
	}
	return out, true
}

// typeSwitchInstance drops, in an instance of a generic function, the
// cases of a type switch that an earlier case already covers once the type
// parameters are replaced (`case T:` then `case int32:` with T = int32):
// they never match in Go, and yaegi refuses the duplicates.
func (r *rewriter) typeSwitchInstance(ts *ast.TypeSwitchStmt) {
	if r.subst == nil {
		return
	}
	var seen []types.Type
	covered := func(t types.Type) bool {
		for _, s := range seen {
			if types.Identical(s, t) {
				return true
			}
		}
		return false
	}
	for _, st := range ts.Body.List {
		cc := st.(*ast.CaseClause)
		var keep []string
		dropped := false
		for _, e := range cc.List {
			tv := r.code.info.Types[e]
			if tv.IsNil() || tv.Type == nil {
				keep = append(keep, r.nodeText(e))
				continue
			}
			t := r.concrete(tv.Type)
			if covered(t) {
				dropped = true
				continue
			}
			seen = append(seen, t)
			keep = append(keep, r.nodeText(e))
		}
		switch {
		case !dropped:
		case len(keep) == 0:
			r.replaceNode(cc, "")
		default:
			r.replace(r.off(cc.List[0].Pos()), r.off(cc.List[len(cc.List)-1].End()), strings.Join(keep, ", "))
		}
	}
}

// shiftCount makes a signed, non-constant shift count unsigned, as yaegi
// v0.16.1 requires (it reads every count with reflect's Uint), keeping
// Go's panic for a negative count.
func (r *rewriter) shiftCount(y ast.Expr) {
	tv := r.code.info.Types[y]
	if tv.Value != nil || tv.Type == nil {
		return
	}
	b, ok := r.concrete(tv.Type).Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUnsigned != 0 {
		return
	}
	r.replaceNode(y, r.ctx.qualify(rtPath)+".ShiftCount(int64("+r.nodeText(y)+"))")
}

// shiftAssign is shiftCount for `x <<= n` and `x >>= n`.
func (r *rewriter) shiftAssign(as *ast.AssignStmt) {
	if (as.Tok == token.SHL_ASSIGN || as.Tok == token.SHR_ASSIGN) && len(as.Rhs) == 1 {
		r.shiftCount(as.Rhs[0])
	}
}

// boolToIface converts a comparison handed to an interface (`return a > b`
// from a func returning any): yaegi v0.16.1 stores the untyped result with
// reflect's SetBool into the interface and panics; a conversion to bool is
// stored right. Comparisons in other value positions are converted too
// (harmless), those in conditions are left alone.
func (r *rewriter) boolToIface(b *ast.BinaryExpr) {
	switch b.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
	default:
		return
	}
	tv := r.code.info.Types[b]
	if tv.Value != nil || tv.Type == nil {
		return
	}
	if bt, ok := tv.Type.(*types.Basic); !ok || bt.Kind() != types.Bool {
		return // untyped bool: a condition
	}
	switch r.parent().(type) {
	case *ast.ReturnStmt, *ast.CallExpr, *ast.CompositeLit, *ast.KeyValueExpr, *ast.AssignStmt, *ast.ValueSpec:
		r.replaceNode(b, "bool("+r.nodeText(b)+")")
	}
}

// recvValue moves a receive used as a value inside an expression
// (`return <-c`, `<-c && x`, `f(<-c)`) into a definition of its own in a
// function literal: yaegi v0.16.1 runs every cell in its cancellable
// channel mode, whose receive there panics ("Set using unaddressable
// value") or drops the value.
func (r *rewriter) recvValue(u *ast.UnaryExpr) {
	if u.Op != token.ARROW {
		return
	}
	switch r.parent().(type) {
	case *ast.AssignStmt, *ast.ExprStmt, *ast.ValueSpec:
		return // a receive statement
	case *ast.ParenExpr:
		if len(r.stack) >= 3 {
			switch r.stack[len(r.stack)-3].(type) {
			case *ast.AssignStmt, *ast.ExprStmt:
				return // a parenthesized receive statement (a select case's)
			}
		}
	}
	t := r.typeOf(u)
	if t == nil {
		return
	}
	if _, tuple := t.(*types.Tuple); tuple {
		return
	}
	v := r.ctx.name("rv")
	r.replaceNode(u, "func() "+r.ctx.typeText(t, r.subst)+" { "+v+" := "+r.nodeText(u)+"; return "+v+" }()")
}
