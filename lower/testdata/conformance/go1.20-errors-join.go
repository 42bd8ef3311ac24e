import (
	"errors"
	"fmt"
)

e1 := errors.New("first")
e2 := errors.New("second")
j := errors.Join(e1, e2)
fmt.Println(j)
fmt.Println(errors.Is(j, e2))
