import "fmt"

var prints []func()
for i := 0; i < 3; i++ {
	prints = append(prints, func() { fmt.Print(i, " ") })
}
for _, v := range []string{"a", "b", "c"} {
	prints = append(prints, func() { fmt.Print(v, " ") })
}
for _, p := range prints {
	p()
}
fmt.Println()
var ptrs []*int
for i := range 3 {
	ptrs = append(ptrs, &i)
}
fmt.Println(*ptrs[0], *ptrs[1], *ptrs[2])
