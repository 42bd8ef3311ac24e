import "fmt"

for i := range 3 {
	fmt.Print(i, " ")
}
fmt.Println()
n := 4
total := 0
for range n {
	total++
}
fmt.Println(total)
var u uint8 = 3
for j := range u {
	fmt.Printf("%T %d\n", j, j)
}
