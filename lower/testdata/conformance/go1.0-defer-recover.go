import "fmt"

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func order() {
	for i := 0; i < 3; i++ {
		defer fmt.Print(i, " ")
	}
}

fmt.Println(safeDiv(10, 2))
_, err := safeDiv(1, 0)
fmt.Println(err)
order()
fmt.Println()
