import (
	"fmt"
	"slices"
)

s := []int{3, 1, 4, 1, 5, 9, 2, 6}
slices.Sort(s)
fmt.Println(s)
i, found := slices.BinarySearch(s, 5)
fmt.Println(i, found, slices.Contains(s, 9), slices.Index(s, 4))
slices.Reverse(s)
fmt.Println(slices.Max(s), slices.Min(s), s)
