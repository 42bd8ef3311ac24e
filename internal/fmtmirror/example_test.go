package fmtmirror_test

import (
	"fmt"

	"github.com/replhost/replhost/internal/fmtmirror"
)

type stringer string

func (s stringer) String() string { return string(s) }

func Example() {
	box := fmtmirror.NewStruct("C,sh,Next", stringer("Blue"), nil, (*int)(nil))
	fmt.Printf("%v\n%+v\n", box, fmtmirror.NewPtr(box))
	m := fmtmirror.NewMap([]any{2, 0, 1}, []any{stringer("Blue"), stringer("Red"), stringer("Green")}, []any{1, 2, 3})
	fmt.Println(m)
	b := fmtmirror.NewMapBuilder()
	b.Add("b", "b", stringer("Green"))
	b.Add("a", "a", stringer("Red"))
	fmt.Println(b.Map())
	// Output:
	// {Blue <nil> <nil>}
	// &{C:Blue sh:<nil> Next:<nil>}
	// map[Red:2 Green:3 Blue:1]
	// map[a:Red b:Green]
}
