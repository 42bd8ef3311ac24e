import "fmt"

type T struct {
	A int
	B string
}

fmt.Printf("%5d|%-5d|%05d\n", 42, 42, 42)
fmt.Printf("%x %X %o %b\n", 255, 255, 8, 5)
fmt.Printf("%.3f %e %g\n", 3.14159, 1234.5678, 0.000012)
fmt.Printf("%q %v %+v\n", "hi", T{1, "x"}, T{2, "y"})
fmt.Printf("%t %c %U\n", true, 'G', 'G')
fmt.Println(fmt.Sprintf("%8.2f|", 3.14159))
