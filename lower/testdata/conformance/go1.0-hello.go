import "fmt"

fmt.Println("hello, world")
