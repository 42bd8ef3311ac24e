import "fmt"

type Animal struct{ Name string }

func (a Animal) Hello() string { return "I am " + a.Name }

type Dog struct {
	Animal
	Breed string
}

func (d Dog) Bark() string { return d.Name + " barks" }

d := Dog{Animal{"Rex"}, "lab"}
fmt.Println(d.Hello())
fmt.Println(d.Bark(), d.Animal.Name, d.Breed)
