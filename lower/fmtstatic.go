package lower

import (
	"go/ast"
	"go/types"
)

// A slice, map or pointer of the session's types that is stored in an
// interface ([]any{[]Color{Red}}, any(map[string]Color{…})) reaches native
// code as a plain value of its underlying type ([]int): yaegi keeps no type
// for it, so the native walk (fmtmirror.Dynamic) cannot know its elements'
// methods. Where the operand itself shows the conversion (a composite
// literal's element in an interface slot, a conversion to an interface
// type), the static type of what is converted is known: that part is
// rebuilt from it before the operand is stored. The rebuilt operand is only
// printed, so what it holds changes nothing else.

// staticParts rebuilds, in operand a (an fmt operand or a shown value),
// each part converted to an interface whose static type prints wrong
// behind it; depth is a's in the printed value.
func (m *mirror) staticParts(a ast.Expr, depth int) {
	if depth > maxMirrorDepth {
		return
	}
	switch e := ast.Unparen(a).(type) {
	case *ast.CompositeLit:
		lt := m.r.typeOf(e)
		if lt == nil {
			return
		}
		for i, elt := range e.Elts {
			key, val := ast.Expr(nil), elt
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				key, val = kv.Key, kv.Value
			}
			switch u := lt.Underlying().(type) {
			case *types.Slice:
				m.slot(u.Elem(), val, depth+1)
			case *types.Array:
				m.slot(u.Elem(), val, depth+1)
			case *types.Map:
				// Not the keys: a rebuilt key may be unhashable (an array
				// becomes a slice) or equal another one (two Strings alike).
				m.slot(u.Elem(), val, depth+1)
			case *types.Struct:
				if f := fieldOf(u, key, i); f != nil && f.Exported() {
					m.slot(f.Type(), val, depth+1) // no method below an unexported field
				}
			}
		}
	case *ast.CallExpr:
		if tv, ok := m.r.code.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			m.slot(tv.Type, e.Args[0], depth) // any(x)
		}
	case *ast.UnaryExpr:
		// &T{…}: what the pointer's struct holds.
		if _, lit := ast.Unparen(e.X).(*ast.CompositeLit); lit {
			m.staticParts(e.X, depth+1)
		}
	}
}

// slot handles x stored in a place of type slot: rebuilt from its own
// static type when slot is an interface and that type needs it, else
// searched for conversions further in.
func (m *mirror) slot(slot types.Type, x ast.Expr, depth int) {
	if x == nil || slot == nil {
		return
	}
	t := m.r.typeOf(x)
	if t == nil {
		return
	}
	m.staticParts(x, depth) // conversions further in first: []any{[]any{[]Color{…}}}
	// Only an empty interface's slot takes the rebuilt value (an any);
	// one of a declared interface (Shape) keeps what it holds.
	if iface, ok := substType(slot, m.r.subst).Underlying().(*types.Interface); ok && iface.Empty() && !types.IsInterface(t) {
		if tv := m.r.code.info.Types[x]; tv.Value == nil && !tv.IsNil() && m.needs(t, depth, false) {
			m.r.replaceNode(x, m.gen(t, "("+m.r.nodeText(x)+")", depth, false))
		}
	}
}

// fieldOf is the field a struct literal's element sets: by its key, or
// the i'th.
func fieldOf(s *types.Struct, key ast.Expr, i int) *types.Var {
	if id, ok := key.(*ast.Ident); ok {
		for j := range s.NumFields() {
			if s.Field(j).Name() == id.Name {
				return s.Field(j)
			}
		}
		return nil
	}
	if key == nil && i < s.NumFields() {
		return s.Field(i)
	}
	return nil
}
