import "fmt"

type Acc struct{ total int }

func (a *Acc) Add(n int) { a.total += n }

acc := &Acc{}
add := acc.Add
add(5)
add(7)
f := (*Acc).Add
f(acc, 1)
fmt.Println(acc.total)
