import (
	"fmt"
	"strconv"
)

n, err := strconv.Atoi("123")
fmt.Println(n, err)
_, err = strconv.Atoi("abc")
fmt.Println(err)
f, _ := strconv.ParseFloat("2.5", 64)
fmt.Println(f*2, strconv.Itoa(99)+"!", strconv.Quote("a\tb"))
b, _ := strconv.ParseBool("true")
fmt.Println(b, strconv.FormatInt(255, 16))
