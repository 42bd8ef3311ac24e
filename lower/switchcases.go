package lower

import (
	"go/ast"
	"strings"
)

// taglessCases joins the expressions of a case of a switch without a tag
// into one (`case a, b:` becomes `case a || b:`): yaegi v0.16.1 tests only
// the first expression of such a case.
func (r *rewriter) taglessCases(s *ast.SwitchStmt) {
	if s.Tag != nil {
		return
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if len(cc.List) < 2 {
			continue
		}
		parts := make([]string, len(cc.List))
		for i, e := range cc.List {
			parts[i] = r.nodeText(e)
		}
		r.replace(r.off(cc.List[0].Pos()), r.off(cc.List[len(cc.List)-1].End()), strings.Join(parts, " || "))
	}
}
