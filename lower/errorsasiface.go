package lower

import (
	"go/types"
)

// errors.As into an interface the session declares (`var target
// NotFound; errors.As(err, &target)`) found nothing when a compiled error
// (fmt.Errorf's %w) wraps the value: what native code holds of it is its
// layout, which yaegi asserts to no interpreted interface. errAsHelper
// then asserts it to each of the session's types that implement the
// interface, as unwrapAllHelper does for Unwrap (layoutAssert: yaegi
// panics asserting the layout of one type to another of other fields).

// implementers are the session's package-level types (T, or *T when only
// the pointer does) that implement t, an interface the session declares,
// as their text; none for another t.
func (r *rewriter) implementers(t types.Type) []string {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.Empty() || isErrorType(t) || !r.ctx.declaredInterface(t) {
		return nil
	}
	var out []string
	for _, n := range r.ctx.sessionTypes() {
		for _, c := range []types.Type{n, types.NewPointer(n)} {
			if types.Implements(c, it) {
				out = append(out, r.ctx.typeText(c, nil))
				break
			}
		}
	}
	return out
}

// layoutAssert declares the comma-ok assertion of a value to the session's
// type t (its text) that yields false where yaegi panics, and returns its
// name.
func (r *rewriter) layoutAssert(t string) string {
	name := "ʟlayoutAs_" + shortHash(t)
	r.ctx.declare(name, func() string {
		return "func " + name + "(x interface{}) (v " + t + ", ok bool) { defer func() { if recover() != nil { ok = false } }(); v, ok = x.(" + t + "); return }"
	})
	return name
}
