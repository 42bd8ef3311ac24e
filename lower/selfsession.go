package lower

// selfTypeMarker is a declaration the lowering adds, once per session,
// with the first type it cuts (selffunc.go, selfptr.go, selfslice.go):
// from then on the uses of that type in any cell need the lowering.
const selfTypeMarker = "ʟselfTypes"

func (r *rewriter) markSelfType() {
	r.ctx.declare(selfTypeMarker, func() string { return "const " + selfTypeMarker + " = true" })
}

// DeclaredSelfType reports whether a committed cell declared a type the
// lowering cuts (`type F func() F`, `type P *P`, `type S []S`): every
// later cell must be lowered, since a call of an F value, a `*p` of a P
// or an element of an S is converted back across the cut.
func (s *Session) DeclaredSelfType() bool { return s.emitted[selfTypeMarker] }
