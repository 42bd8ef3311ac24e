import "fmt"

var a [5]int
for i := 0; i < len(a); i++ {
	a[i] = i * i
}
b := a
b[0] = 100
fmt.Println(a, b, a == [5]int{0, 1, 4, 9, 16})
grid := [2][3]string{{"a", "b", "c"}, {"d", "e", "f"}}
fmt.Println(grid[1][2], len(grid))
