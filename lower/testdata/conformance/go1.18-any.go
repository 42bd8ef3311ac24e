import "fmt"

var xs []any
xs = append(xs, 1, "two", 3.0)
for _, x := range xs {
	fmt.Printf("%T ", x)
}
fmt.Println()
