import (
	"fmt"
	"maps"
	"slices"
)

m := map[string]int{"b": 2, "a": 1, "c": 3}
keys := slices.Sorted(maps.Keys(m))
fmt.Println(keys)
vals := slices.Collect(maps.Values(m))
slices.Sort(vals)
fmt.Println(vals)
