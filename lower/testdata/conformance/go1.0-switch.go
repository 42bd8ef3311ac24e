import "fmt"

func grade(n int) string {
	switch {
	case n >= 90:
		return "A"
	case n >= 80:
		return "B"
	default:
		return "C"
	}
}

func kind(c byte) string {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return "vowel"
	case ' ':
		return "space"
	}
	return "consonant"
}

fmt.Println(grade(95), grade(85), grade(10))
fmt.Println(kind('a'), kind('z'), kind(' '))
switch x := 2; x {
case 1:
	fmt.Println("one")
case 2:
	fmt.Println("two")
	fallthrough
case 3:
	fmt.Println("three (fallthrough)")
}
