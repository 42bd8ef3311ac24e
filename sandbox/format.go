package sandbox

import (
	"fmt"
	"reflect"
	"strings"
)

// formatValues renders the results of an expression statement the way the
// REPL shows them: strings quoted, the rest with %v, several results
// separated by spaces. A result list of exactly (int, nil) is what the
// fmt.Print and Write families return: it shows nothing, so that
// fmt.Println("hi") prints just hi. ok is false when nothing is shown.
func formatValues(vals []any) (string, bool) {
	if len(vals) == 0 {
		return "", false
	}
	if len(vals) == 2 && vals[1] == nil {
		if _, isInt := vals[0].(int); isInt {
			return "", false
		}
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = formatValue(v)
	}
	return strings.Join(parts, " "), true
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case error:
		if x == nil {
			return "<nil>"
		}
		return x.Error()
	case nil:
		return "<nil>"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Func {
		return rv.Type().String()
	}
	return fmt.Sprintf("%v", v)
}
