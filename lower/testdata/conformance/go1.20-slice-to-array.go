import "fmt"

s := []int{1, 2, 3, 4}
a := [4]int(s)
a[0] = 100
fmt.Println(a, s[0])
p := (*[2]int)(s)
p[1] = 200
fmt.Println(s)
