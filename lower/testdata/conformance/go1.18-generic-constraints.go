import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

func Keys[K comparable, V any](m map[K]V) int { return len(m) }

func MaxOf[T int | float64 | string](a, b T) T {
	if a > b {
		return a
	}
	return b
}

p := Pair[string, int]{"a", 1}
fmt.Println(p.String(), Keys(map[int]bool{1: true, 2: false}))
fmt.Println(MaxOf(3, 7), MaxOf("abc", "abd"), MaxOf(2.5, 1.5))
