import "fmt"

fmt.Println(min(3, 1, 2), max(3, 1, 2))
a, b := 2.5, -1.0
fmt.Println(min(a, b), max(a, b, 10))
fmt.Println(min("banana", "apple"), max("x", "y", "w"))
type Celsius float64
var c1, c2 Celsius = 20, 30
fmt.Println(max(c1, c2))
const k = min(4, 2.5)
fmt.Println(k)
