package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ifaceKeyHash is unhashableKey for a key that is itself an interface
// value (`var z interface{} = T{}; m[z] = 1`, T holding a slice): Go
// panics with the dynamic type's name ("hash of unhashable type main.T"),
// yaegi with the struct it builds T from. Only where the cell declares a
// type that is not comparable, and the key has no effects (it is read
// twice): the key goes through rt.HashKey, which panics with the name
// assertions to those types give (made in interpreted code: compiled
// code does not see the interpreted type).
func (r *rewriter) ifaceKeyHash(n ast.Node) {
	var m, key ast.Expr
	switch n := n.(type) {
	case *ast.IndexExpr:
		m, key = n.X, n.Index
	case *ast.CallExpr:
		if len(n.Args) != 2 || !r.callsBuiltin(n, "delete") {
			return
		}
		m, key = n.Args[0], n.Args[1]
	default:
		return
	}
	mt := r.typeOf(m)
	if mt == nil {
		return
	}
	mp, ok := mt.Underlying().(*types.Map)
	if !ok || !types.IsInterface(mp.Key()) || isTypeParam(mp.Key()) {
		return
	}
	kt := r.typeOf(key)
	if kt == nil || !types.IsInterface(kt) || isTypeParam(kt) || !sideEffectFree(key) {
		return
	}
	names := r.unhashableTypes()
	if len(names) == 0 {
		return
	}
	helper := "ʟhashName_" + shortHash(strings.Join(names, ","))
	r.ctx.declare(helper, func() string {
		var b strings.Builder
		// Assertions: yaegi's type switch matched none of these types.
		b.WriteString("func " + helper + "(v any) string {")
		for _, nm := range names {
			b.WriteString(" if _, ok := v.(" + nm + "); ok { return " + strconv.Quote("main."+nm) + " };")
		}
		b.WriteString(" return \"\" }")
		return b.String()
	})
	k := r.nodeText(key)
	r.replaceNode(key, r.ctx.qualify(rtPath)+".HashKey("+k+", "+helper+"("+k+"))")
}

// unhashableTypes are the names of the package-level types the cell
// itself declares that are not comparable and not generic, sorted (the
// cell's own: what the cell sees of earlier ones depends on what it uses).
func (r *rewriter) unhashableTypes() []string {
	if r.subst != nil {
		return nil
	}
	var out []string
	for id, obj := range r.code.info.Defs {
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() || tn.Pkg() == nil || tn.Parent() != tn.Pkg().Scope() || r.ctx.chk.cur.offset(id.Pos()) < 0 {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) || types.Comparable(named) {
			continue
		}
		out = append(out, tn.Name())
	}
	sort.Strings(out)
	return out
}

// HashKey returns k, a map key, after Go's check that its dynamic type is
// comparable; n names an interpreted type ("" for others).
func HashKey(k any, n string) any {
	if t := reflect.TypeOf(k); t != nil && !t.Comparable() {
		if n == "" {
			n = t.String()
		}
		panic(RuntimeError{"hash of unhashable type " + n})
	}
	return k
}

func init() {
	Runtime[rtPath+"/rt"]["HashKey"] = reflect.ValueOf(HashKey)
}
