import "fmt"

type Node struct {
	Val  int
	Next *Node
}

var head *Node
for i := 3; i > 0; i-- {
	head = &Node{i, head}
}
for n := head; n != nil; n = n.Next {
	fmt.Print(n.Val, " ")
}
fmt.Println()
x := 1
p := &x
*p = 5
pp := &p
**pp++
fmt.Println(x, *p == x)
