import "fmt"

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

const (
	_  = iota
	KB = 1 << (10 * iota)
	MB
)

func (d Weekday) String() string { return [...]string{"Sun", "Mon", "Tue"}[d] }

fmt.Println(Sunday, Tuesday, KB, MB)
fmt.Printf("%d %v\n", Monday, Monday)
