import "fmt"

fmt.Println(0b1011, 0o17, 0x_FF, 1_000_000, 0x1p-2)
x := 1
fmt.Println(x << 3, -8 >> 1)
var sh int = 2
fmt.Println(1 << sh)
