import (
	"fmt"
	"time"
)

c1 := make(chan string)
c2 := make(chan string)
go func() { c1 <- "one" }()
go func() { time.Sleep(20 * time.Millisecond); c2 <- "two" }()
got := []string{}
for len(got) < 2 {
	select {
	case m := <-c1:
		got = append(got, m)
	case m := <-c2:
		got = append(got, m)
	}
}
fmt.Println(got)
select {
case v := <-c1:
	fmt.Println("unexpected", v)
default:
	fmt.Println("nothing ready")
}
