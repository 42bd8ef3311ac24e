import (
	"fmt"
	"sort"
)

m := map[string]int{"a": 1, "b": 2}
m["c"] = 3
delete(m, "a")
v, ok := m["a"]
fmt.Println(v, ok, len(m))
keys := make([]string, 0, len(m))
for k := range m {
	keys = append(keys, k)
}
sort.Strings(keys)
fmt.Println(keys)
