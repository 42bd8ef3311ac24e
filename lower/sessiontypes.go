package lower

import "go/types"

// sessionTypes are the session's package-level defined types that are
// neither generic nor interfaces, by name: the candidates the helpers
// that stand in for yaegi's assertions and type switches test in turn.
func (ctx *lowerCtx) sessionTypes() []*types.Named {
	scope := ctx.chk.scope()
	var out []*types.Named
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
			continue
		}
		if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 {
			out = append(out, n)
		}
	}
	return out
}
