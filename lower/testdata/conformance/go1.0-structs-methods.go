import "fmt"

type Point struct{ X, Y int }

func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }
func (p *Point) Scale(k int)      { p.X *= k; p.Y *= k }

p := Point{1, 2}
p.Scale(3)
fmt.Println(p.Add(Point{10, 20}))
fmt.Printf("%+v %v\n", p, &p)
