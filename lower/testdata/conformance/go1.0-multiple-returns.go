import (
	"errors"
	"fmt"
	"strconv"
)

func divmod(a, b int) (int, int) { return a / b, a % b }

func parse(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("bad number: " + s)
	}
	return n, nil
}

q, r := divmod(17, 5)
fmt.Println(q, r)
if _, err := parse("x1"); err != nil {
	fmt.Println(err)
}
n, _ := parse("42")
fmt.Println(n + 1)
