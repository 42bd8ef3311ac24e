package lower

import (
	"go/ast"
	"go/types"
	"math/bits"
	"reflect"
	"strconv"
)

// makeSliceCheck lowers make([]T, n) and make([]T, n, c) with a length or
// capacity that is not constant to check them as Go's makeslice does, with
// the element's size in gc's layout: yaegi v0.16.1 hands them to
// reflect.MakeSlice, which panics with reflect's strings for a negative
// one and "runtime: allocation size out of range" for one too large,
// where Go raises "makeslice: len out of range" or "makeslice: cap out of
// range" (runtime.Error values). The check is one native call per make.
func (r *rewriter) makeSliceCheck(n *ast.CallExpr) {
	if len(n.Args) < 2 || len(n.Args) > 3 || !r.callsBuiltin(n, "make") {
		return
	}
	t := r.typeOf(n.Args[0])
	if t == nil {
		return
	}
	sl, ok := t.Underlying().(*types.Slice)
	if !ok {
		return
	}
	elem := substType(sl.Elem(), r.subst)
	if mentionsTypeParam(elem) {
		return
	}
	size := strconv.FormatInt(gcSizes.Sizeof(elem), 10)
	constant := func(e ast.Expr) bool { return r.code.info.Types[e].Value != nil }
	rt := r.ctx.qualify(rtPath)
	if len(n.Args) == 2 {
		if !constant(n.Args[1]) {
			fn := ".MakeLen("
			if a, ok := r.parent().(*ast.CallExpr); ok && a.Ellipsis.IsValid() && len(a.Args) == 2 && a.Args[1] == n {
				fn = ".AppendMakeLen(" // append(s, make([]T, n)...): Go grows s
			}
			r.replaceNode(n.Args[1], rt+fn+"int("+r.nodeText(n.Args[1])+"), "+size+")")
		}
		return
	}
	l, c := n.Args[1], n.Args[2]
	if constant(l) && constant(c) || !constant(l) && !sideEffectFree(l) {
		return // a length that is read twice must not change
	}
	r.replaceNode(c, rt+".MakeCap(int("+r.nodeText(l)+"), int("+r.nodeText(c)+"), "+size+")")
}

// maxAlloc is the largest allocation of Go's runtime on linux/amd64.
const maxAlloc = 1 << 48

// MakeLen checks the length of make([]T, n) as Go's makeslice does, for
// elements of size bytes, and returns it.
func MakeLen(n int, size uintptr) int {
	if !allocFits(n, size) {
		panic(RuntimeError{"makeslice: len out of range"})
	}
	return n
}

// AppendMakeLen checks n of append(s, make([]T, n)...), which gc compiles
// to growing s by n: a negative n is makeslice's error, one too large
// growslice's.
func AppendMakeLen(n int, size uintptr) int {
	if n >= 0 && !allocFits(n, size) {
		panic(RuntimeError{"growslice: len out of range"})
	}
	return MakeLen(n, size)
}

// MakeCap checks the length and capacity of make([]T, n, c) as Go's
// makeslice does, and returns c.
func MakeCap(n, c int, size uintptr) int {
	if !allocFits(c, size) || n < 0 || n > c {
		if !allocFits(n, size) {
			panic(RuntimeError{"makeslice: len out of range"})
		}
		panic(RuntimeError{"makeslice: cap out of range"})
	}
	return c
}

func allocFits(n int, size uintptr) bool {
	if n < 0 {
		return false
	}
	hi, mem := bits.Mul64(uint64(size), uint64(n))
	return hi == 0 && mem <= maxAlloc
}

func init() {
	Runtime[rtPath+"/rt"]["MakeLen"] = reflect.ValueOf(MakeLen)
	Runtime[rtPath+"/rt"]["MakeCap"] = reflect.ValueOf(MakeCap)
	Runtime[rtPath+"/rt"]["AppendMakeLen"] = reflect.ValueOf(AppendMakeLen)
}
