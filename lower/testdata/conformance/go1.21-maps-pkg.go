import (
	"fmt"
	"maps"
)

m := map[string]int{"a": 1, "b": 2}
c := maps.Clone(m)
c["c"] = 3
fmt.Println(len(m), len(c), maps.Equal(m, c))
maps.DeleteFunc(c, func(k string, v int) bool { return v > 1 })
fmt.Println(c)
