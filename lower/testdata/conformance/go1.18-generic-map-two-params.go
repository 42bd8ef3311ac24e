import (
	"fmt"
	"strconv"
)

func Map[T, U any](s []T, f func(T) U) []U {
	r := make([]U, 0, len(s))
	for _, v := range s {
		r = append(r, f(v))
	}
	return r
}

func Filter[T any](s []T, keep func(T) bool) []T {
	var r []T
	for _, v := range s {
		if keep(v) {
			r = append(r, v)
		}
	}
	return r
}

strs := Map([]int{1, 2, 3}, func(i int) string { return strconv.Itoa(i * i) })
fmt.Println(strs, len(strs))
evens := Filter([]int{1, 2, 3, 4}, func(i int) bool { return i%2 == 0 })
fmt.Println(evens)
fmt.Println(Map(evens, func(i int) float64 { return float64(i) / 4 }))
