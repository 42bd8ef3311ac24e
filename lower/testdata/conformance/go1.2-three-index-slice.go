import "fmt"

a := []int{0, 1, 2, 3, 4, 5}
s := a[1:3:4]
fmt.Println(s, len(s), cap(s))
s = append(s, 99)
fmt.Println(a)
s = append(s, 100)
fmt.Println(a, s)
