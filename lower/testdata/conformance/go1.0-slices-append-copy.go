import "fmt"

s := []int{1, 2, 3}
s = append(s, 4, 5)
t := make([]int, 3)
n := copy(t, s[1:])
fmt.Println(s, t, n, len(s[2:4]), cap(s[:0]) >= 5)
var nilS []int
fmt.Println(nilS == nil, len(nilS))
