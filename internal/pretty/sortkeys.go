package pretty

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// sortKeys orders map keys as fmt does for the kinds that have an order;
// other keys by their printed form.
func sortKeys(keys []reflect.Value) {
	slices.SortStableFunc(keys, func(a, b reflect.Value) int {
		switch a.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return cmp.Compare(a.Int(), b.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return cmp.Compare(a.Uint(), b.Uint())
		case reflect.String:
			return cmp.Compare(a.String(), b.String())
		case reflect.Float32, reflect.Float64:
			return cmp.Compare(a.Float(), b.Float())
		}
		return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
}
