package sandbox

import (
	"go/ast"
	"go/parser"
	"strings"

	"github.com/replhost/replhost/internal/pretty"
)

// formatValues renders the results of an expression statement the way the
// REPL shows them (internal/pretty: strings quoted, field names, String and
// Error honoured, long values over several lines). output says the
// expression is a call of the fmt.Print or Write families (outputCall):
// their (int, nil) shows nothing, so that fmt.Println("hi") prints just
// hi. A list ending in an
// error shows the error when it is not nil and the other results when it
// is, so (T, error) shows the T. ok is false when nothing is shown.
func formatValues(vals []any, output bool) (string, bool) {
	if n := len(vals); n > 1 && isErrorResult(vals[n-1]) {
		if err := vals[n-1]; err != nil {
			return pretty.Sprint(err), true
		}
		vals = vals[:n-1]
		if len(vals) == 1 && output {
			if _, isInt := vals[0].(int); isInt {
				return "", false
			}
		}
	}
	if len(vals) == 0 {
		return "", false
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = pretty.Sprint(v)
	}
	return strings.Join(parts, " "), true
}

// isErrorResult reports whether v, the last result, is an error or nil (a
// nil error arrives as nil).
func isErrorResult(v any) bool {
	if v == nil {
		return true
	}
	_, ok := v.(error)
	return ok
}

// outputCalls are the functions and methods whose (n int, err error) result
// is a byte count nobody asked to see.
var outputCalls = map[string]bool{
	"Print": true, "Printf": true, "Println": true, "Fprint": true, "Fprintf": true, "Fprintln": true,
	"Write": true, "WriteString": true, "WriteRune": true, "WriteByte": true, "WriteAt": true,
}

// outputCall reports whether the expression unit u calls one of
// outputCalls (by its name: the values alone cannot tell fmt.Println from
// strconv.Atoi).
func outputCall(u unit) bool {
	var e ast.Expr
	if st, ok := u.onlyStmt().(*ast.ExprStmt); ok {
		e = st.X
	} else if x, err := parser.ParseExpr(u.text); err == nil {
		e = x
	} else {
		return false
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		return outputCalls[f.Sel.Name]
	case *ast.Ident:
		return outputCalls[f.Name]
	}
	return false
}
