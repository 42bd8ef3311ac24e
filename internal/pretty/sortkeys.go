package pretty

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/replhost/replhost/internal/fmtmirror"
)

// sortKeys orders map keys as fmt does for the kinds that have an order
// (fmtmirror.CompareKeys, the order of the prompt's rebuilt maps too);
// other keys by their printed form.
func sortKeys(keys []reflect.Value) {
	slices.SortStableFunc(keys, func(a, b reflect.Value) int {
		if c := fmtmirror.CompareKeys(a, b); c != 0 {
			return c
		}
		return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
}
