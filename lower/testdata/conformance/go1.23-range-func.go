import "fmt"

func Count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

for v := range Count(5) {
	if v == 3 {
		break
	}
	fmt.Println(v)
}
