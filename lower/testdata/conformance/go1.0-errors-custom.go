import "fmt"

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

func find(k string) error {
	if k == "" {
		return nil
	}
	return &NotFound{k}
}

if err := find("x"); err != nil {
	fmt.Println(err)
	if nf, ok := err.(*NotFound); ok {
		fmt.Println("key was", nf.Key)
	}
}
fmt.Println(find("") == nil)
