import (
	"fmt"
	"iter"
)

func Enumerate[T any](s []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

for i, s := range Enumerate([]string{"x", "y", "z"}) {
	if i == 1 {
		continue
	}
	fmt.Println(i, s)
}
