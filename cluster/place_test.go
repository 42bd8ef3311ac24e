package cluster

import (
	"fmt"
	"testing"
)

func TestPlaceIsStableAndSpreads(t *testing.T) {
	ms := []Member{{Node: "n1"}, {Node: "n2"}, {Node: "n3"}}
	reversed := []Member{ms[2], ms[1], ms[0]}
	const users = 3000
	count := map[string]int{}
	first := map[string]string{}
	for i := 0; i < users; i++ {
		u := fmt.Sprintf("user%d", i)
		got := place(u, ms)
		if again := place(u, reversed); again.Node != got.Node {
			t.Fatalf("Place(%s) = %s, then %s with members reordered", u, got.Node, again.Node)
		}
		first[u] = got.Node
		count[got.Node]++
	}
	for _, m := range ms { // an even share is 1000; allow a wide band
		if c := count[m.Node]; c < 800 || c > 1200 {
			t.Errorf("node %s got %d of %d users: %v", m.Node, c, users, count)
		}
	}
	// n3 leaving moves only its users; n2 draining likewise.
	for _, left := range [][]Member{ms[:2], {ms[0], {Node: "n2", Draining: true}, ms[2]}} {
		gone := "n3"
		if len(left) == 3 {
			gone = "n2"
		}
		for u, was := range first {
			got := place(u, left).Node
			if was != gone && got != was {
				t.Errorf("%s moved from %s to %s when %s left", u, was, got, gone)
			}
			if got == gone {
				t.Errorf("%s placed on %s, which left", u, gone)
			}
		}
	}
	if got := place("u", []Member{{Node: "a", Draining: true}}); got != (Member{}) {
		t.Errorf("Place with only draining members = %+v; want the zero Member", got)
	}
}
