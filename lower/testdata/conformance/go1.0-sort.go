import (
	"fmt"
	"sort"
)

type byLen []string

func (s byLen) Len() int           { return len(s) }
func (s byLen) Less(i, j int) bool { return len(s[i]) < len(s[j]) }
func (s byLen) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

words := []string{"banana", "kiwi", "apple", "fig"}
sort.Sort(byLen(words))
fmt.Println(words)
ints := []int{5, 2, 8, 1}
sort.Ints(ints)
fmt.Println(ints, sort.SearchInts(ints, 5))
