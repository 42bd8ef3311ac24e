import "fmt"

var fns []func() int
for i := 0; i < 3; i++ {
	fns = append(fns, func() int { return i * 10 })
}
for _, f := range fns {
	fmt.Print(f(), " ")
}
fmt.Println()
