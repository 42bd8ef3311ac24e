import "fmt"

outer:
for i := 0; i < 3; i++ {
	for j := 0; j < 3; j++ {
		if j == 2 {
			continue outer
		}
		if i == 2 {
			break outer
		}
		fmt.Println(i, j)
	}
}

func countdown(n int) {
loop:
	if n > 0 {
		fmt.Print(n, " ")
		n--
		goto loop
	}
	fmt.Println("liftoff")
}

countdown(3)
