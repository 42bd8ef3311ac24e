import (
	"fmt"
	"math"
)

type Shape interface {
	Area() float64
	Name() string
}

type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64   { return r.W * r.H }
func (r Rect) Name() string    { return "rect" }
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }
func (c Circle) Name() string  { return "circle" }

shapes := []Shape{Rect{2, 3}, Circle{1}}
total := 0.0
for _, s := range shapes {
	fmt.Printf("%s %.2f\n", s.Name(), s.Area())
	total += s.Area()
}
fmt.Printf("total %.3f\n", total)
