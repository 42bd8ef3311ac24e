package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// code is a source text with the type information of its AST: a cell, or a
// file of the generic std implementations.
type code struct {
	src  []byte
	off  func(token.Pos) int // offset of a position in src
	info *types.Info
	// mark says src is the cell being lowered: its text is marked with
	// where it comes from, for the SourceMap (see srcmap.go).
	mark bool
}

// edit replaces src[start:end] by text.
type edit struct {
	start, end int
	text       string
	seq        int // insertion order, for edits at the same offset
}

// rewriter collects the edits that lower one piece of code. In an instance
// of a generic declaration, subst maps its type parameters to the type
// arguments.
type rewriter struct {
	ctx   *lowerCtx
	code  *code
	subst map[*types.TypeParam]types.Type
	edits []edit
	seq   int
	stack []ast.Node // ancestors of the node being visited
	fns   []*fnCtx   // enclosing functions, innermost last
	facts *varFacts
	// wrapped is set while visiting a top-level statement that the
	// lowering puts inside a function literal.
	wrapped bool
	sel     selectState // see selectorder.go
	// shadowNames are the new names of local types (see shadowtype.go).
	shadowNames map[*types.TypeName]string
	// brkLabels label the end of statements a select breaks out of
	// (see selectbreak.go).
	brkLabels map[*ast.LabeledStmt]string
	// tupled are the tuple assignments tupleAssign rewrote (assignphase.go).
	tupled map[*ast.AssignStmt]bool
	// fieldNames is set while lowering a %+v operand (fmtplusv.go).
	fieldNames bool
	// stmtChecks are the seqs of the checks boundsCheck put before a
	// statement (boundscheck.go): showExpr keeps them out of the value.
	stmtChecks map[int]bool
}

// fnCtx is a function (or the cell's top level) being rewritten.
type fnCtx struct {
	sig *types.Signature // nil at a cell's top level
	// results are the names of the named results, nil if unnamed.
	results []string
	rf      []*rfLoop // enclosing range-over-func loops, outermost first
	// retVars are declared by the outermost range-over-func loop for the
	// returns made inside it.
	retVars []string
}

func newRewriter(ctx *lowerCtx, c *code, subst map[*types.TypeParam]types.Type) *rewriter {
	return &rewriter{ctx: ctx, code: c, subst: subst}
}

func (r *rewriter) off(p token.Pos) int { return r.code.off(p) }

// replace sets the text of src[start:end], dropping the edits inside it:
// the caller has folded them into text with nodeText. Edits are made children
// first, so every edit inside the range belongs to the node being replaced.
func (r *rewriter) replace(start, end int, text string) {
	kept := r.edits[:0]
	for _, e := range r.edits {
		if e.start >= start && e.end <= end {
			continue
		}
		kept = append(kept, e)
	}
	r.edits = kept
	r.seq++
	r.edits = append(r.edits, edit{start, end, text, r.seq})
}

// insert adds text at offset at, after earlier insertions there.
func (r *rewriter) insert(at int, text string) {
	r.seq++
	r.edits = append(r.edits, edit{at, at, text, r.seq})
}

func (r *rewriter) replaceNode(n ast.Node, text string) {
	r.replace(r.off(n.Pos()), r.off(n.End()), text)
}

// text returns src[start:end] with the edits inside it applied.
func (r *rewriter) text(start, end int) string {
	var in []edit
	for _, e := range r.edits {
		if e.start >= start && e.end <= end {
			in = append(in, e)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		if in[i].start != in[j].start {
			return in[i].start < in[j].start
		}
		// An insertion goes before a replacement at the same offset.
		if (in[i].start == in[i].end) != (in[j].start == in[j].end) {
			return in[i].start == in[i].end
		}
		return in[i].seq < in[j].seq
	})
	var b strings.Builder
	mark := r.code.mark
	verbatim := func(from, to int) {
		if from == to {
			return
		}
		if mark {
			b.WriteString(openMark(markVerbatim, from))
		}
		b.Write(r.code.src[from:to])
		if mark {
			b.WriteRune(markEnd)
		}
	}
	at := start
	for _, e := range in {
		if e.start < at {
			continue // overlapped by an earlier edit
		}
		verbatim(at, e.start)
		if mark {
			b.WriteString(openMark(markSynth, e.start))
		}
		b.WriteString(e.text)
		if mark {
			b.WriteRune(markEnd)
		}
		at = e.end
	}
	verbatim(at, end)
	return b.String()
}

func (r *rewriter) nodeText(n ast.Node) string {
	return r.text(r.off(n.Pos()), r.off(n.End()))
}

// typeOf returns the type of e with type parameters substituted.
func (r *rewriter) typeOf(e ast.Expr) types.Type {
	t := r.code.info.TypeOf(e)
	if t == nil {
		return nil
	}
	return r.concrete(t)
}

// concrete resolves a type parameter to its argument in an instance.
func (r *rewriter) concrete(t types.Type) types.Type {
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok && r.subst != nil {
		if a, ok := r.subst[tp]; ok {
			return a
		}
	}
	return t
}

func (r *rewriter) parent() ast.Node {
	if len(r.stack) < 2 {
		return nil
	}
	return r.stack[len(r.stack)-2]
}

func (r *rewriter) fn() *fnCtx { return r.fns[len(r.fns)-1] }

// walk rewrites the nodes of root, children before parents.
func (r *rewriter) walk(root ast.Node) {
	if r.facts == nil {
		r.facts = collectFacts(r.code.info, root)
	}
	if len(r.fns) == 0 {
		r.fns = append(r.fns, &fnCtx{})
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			n = r.stack[len(r.stack)-1]
			r.post(n)
			r.stack = r.stack[:len(r.stack)-1]
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				r.fns = r.fns[:len(r.fns)-1]
			}
			return false
		}
		r.stack = append(r.stack, n)
		if !r.pre(n) {
			r.stack = r.stack[:len(r.stack)-1]
			return false
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			r.fns = append(r.fns, r.newFn(n.Type, n.Name))
		case *ast.FuncLit:
			r.fns = append(r.fns, r.newFn(n.Type, nil))
		}
		return true
	})
}

func (r *rewriter) newFn(ft *ast.FuncType, name *ast.Ident) *fnCtx {
	f := &fnCtx{}
	if name != nil {
		if fn, ok := r.code.info.Defs[name].(*types.Func); ok {
			f.sig = fn.Type().(*types.Signature)
		}
	} else if sig, ok := r.code.info.TypeOf(ft).(*types.Signature); ok {
		f.sig = sig
	}
	if ft.Results != nil && len(ft.Results.List) > 0 && len(ft.Results.List[0].Names) > 0 {
		for _, fld := range ft.Results.List {
			for _, n := range fld.Names {
				f.results = append(f.results, n.Name)
			}
		}
	}
	return f
}

// pre is called before a node's children; false skips them.
func (r *rewriter) pre(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.RangeStmt:
		if r.isRangeFunc(n) {
			r.enterRangeFunc(n)
		}
	case *ast.SelectStmt:
		r.selectOrderPre(n)
	case *ast.CallExpr:
		return r.unsafeConst(n)
	case *ast.Ident:
		r.shadowType(n)
		r.redefinedIdent(n)
		r.universeName(n)
		return r.ident(n)
	}
	return true
}

// post is called after a node's children.
func (r *rewriter) post(n ast.Node) {
	defer r.selectOperandDone(n)
	defer r.typeFixes(n) // see typefixes.go; after the others: it adapts what they wrote
	r.bigConst(n)
	switch n := n.(type) {
	case *ast.RangeStmt:
		switch {
		case r.isRangeFunc(n):
			r.rangeFunc(n)
		case r.isRangeInt(n):
			r.rangeInt(n)
		case r.isRangeStringIndex(n):
			r.rangeString(n)
		default:
			r.rangeArrayPtr(n)
			r.loopVarRange(n)
			r.rangeAssign(n)
		}
	case *ast.ForStmt:
		r.loopVarFor(n)
	case *ast.CommClause:
		r.selectAssign(n)
	case *ast.SelectStmt:
		r.selectOrder(n)
	case *ast.CaseClause:
		r.constCase(n)
	case *ast.GenDecl:
		r.constValues(n)
	case *ast.SwitchStmt:
		r.ifaceSwitch(n)
		r.taglessCases(n)
		r.initAssign(n)
	case *ast.TypeSwitchStmt:
		r.typeSwitchInstance(n)
		r.errorTypeSwitch(n)
		r.bindTypeSwitch(n)
		r.initAssign(n)
	case *ast.IfStmt:
		r.initAssign(n)
	case *ast.UnaryExpr:
		r.recvValue(n)
		r.addrArrayPtrElem(n)
		r.constNegZero(n)
	case *ast.BinaryExpr:
		r.constShiftCount(n.Op, n.Y)
		r.constShift(n)
		r.ifaceCompare(n)
		r.boolToIface(n)
	case *ast.CallExpr:
		r.builtinCall(n)
		r.printCall(n)
		r.errorsCall(n)
		r.fatalCall(n)
		r.finalizerLit(n)
		r.appendArgs(n)
		r.builtinSpread(n)
		r.makeSliceCheck(n)
	case *ast.BranchStmt:
		r.branch(n)
		r.selectBreak(n)
	case *ast.ReturnStmt:
		r.funcReturn(n)
		r.ifaceReturn(n)
		r.returnStmt(n)
	case *ast.DeferStmt:
		// deferlist.go, deferchain.go; each binds the call as deferArgs does
		if !r.deferList(n) && !r.deferChain(n) {
			r.deferStmt(n)
		}
	case *ast.ExprStmt:
		r.topLevelLitCall(n)
	case *ast.GoStmt:
		r.goStmt(n)
	case *ast.ArrayType:
		r.arrayLen(n)
	case *ast.FuncDecl:
		r.zeroResults(n.Type, n.Body)
		if n.Body != nil {
			r.nameParams(n.Type)
		}
		if r.code.mark && r.subst == nil {
			r.registerFmtMethod(n) // fmtregistry.go
		}
	case *ast.FuncLit:
		r.zeroResults(n.Type, n.Body)
		r.nameParams(n.Type)
		r.loopLit(n) // looplit.go; after nameParams, whose names it copies
	case *ast.AssignStmt:
		if len(n.Rhs) == 1 {
			r.constShiftCount(n.Tok, n.Rhs[0])
		}
		r.shiftAssign(n)
		r.tupleAssign(n)
		r.blankDeref(n)
		r.opAssignOrder(n)
		if n.Tok == token.DEFINE {
			r.commaOK(n.Lhs, n.Rhs)
		}
		r.commaOKZero(n.Lhs, n.Rhs, n.Tok)
		r.mapTupleAssign(n)
		r.recvAssign(n)
	case *ast.ValueSpec:
		names := make([]ast.Expr, len(n.Names))
		for i, id := range n.Names {
			names[i] = id
		}
		r.commaOK(names, n.Values)
		r.commaOKZero(names, n.Values, token.VAR)
	case *ast.SelectorExpr:
		r.selector(n)
		r.methodValue(n)
		r.promotedPath(n)
		r.pkgVar(n)
	case *ast.TypeAssertExpr:
		r.impossibleAssert(n)
		r.ifaceAssert(n)
		r.keepAssert(n)     // keepvalue.go
		r.concreteAssert(n) // assertconcrete.go
	case *ast.IndexExpr:
		r.instantiation(n, n.X)
	case *ast.IndexListExpr:
		r.instantiation(n, n.X)
	}
	r.boundsCheck(n)
	r.mapKeyIndex(n)
	r.ifaceKeyHash(n)
}
