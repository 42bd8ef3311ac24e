import (
	"fmt"
	"sort"
)

type person struct {
	name string
	age  int
}

people := []person{{"Alice", 30}, {"Bob", 25}, {"Carol", 35}, {"Dan", 25}}
sort.SliceStable(people, func(i, j int) bool { return people[i].age < people[j].age })
fmt.Println(people)
sort.Slice(people, func(i, j int) bool { return people[i].name > people[j].name })
fmt.Println(people[0].name)
