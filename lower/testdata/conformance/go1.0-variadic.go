import "fmt"

func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

fmt.Println(sum(), sum(1, 2, 3))
nums := []int{4, 5, 6}
fmt.Println(sum(nums...))
