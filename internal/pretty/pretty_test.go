package pretty

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type point struct{ X, Y int }

type list struct {
	V    int
	Next *list
}

type hidden struct {
	name string
	when time.Duration
}

func TestSprint(t *testing.T) {
	cyc := &list{V: 1}
	cyc.Next = cyc
	var nilErr error
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "<nil>"},
		{"nil-error", nilErr, "<nil>"},
		{"struct", point{1, 2}, "{X:1 Y:2}"},
		{"pointer", &point{1, 2}, "&{X:1 Y:2}"},
		{"nested-pointer", &list{1, &list{2, nil}}, "&{V:1 Next:&{V:2 Next:<nil>}}"},
		{"string", "a\"b", `"a\"b"`},
		{"string-in-struct-as-fmt", struct{ S string }{"x"}, "{S:x}"},
		{"bytes-text", []byte("hi"), `"hi"`},
		{"bytes-binary", []byte{0, 255}, "[0 255]"},
		{"stringer-inside", []time.Duration{time.Second}, "[1s]"},
		{"unexported-fields", hidden{"a", time.Second}, "{name:a when:1000000000}"}, // as fmt: no method of an unexported field
		{"error", errors.New("boom"), "boom"},
		{"func", strings.ToUpper, "func(string) string"},
		{"map-sorted", map[string]int{"b": 2, "a": 1}, "map[a:1 b:2]"},
		{"nil-slice", []int(nil), "[]"},
		{"int-pointer", new(int), "&0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sprint(tc.v); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
	// A cycle ends in an address instead of running away.
	if got := Sprint(cyc); !strings.HasPrefix(got, "&{V:1 Next:0x") {
		t.Errorf("cycle: %q", got)
	}
}

func TestSprintLongOverLines(t *testing.T) {
	v := []point{{100000, 200000}, {300000, 400000}, {500000, 600000}, {700000, 800000}}
	want := "[\n  {X:100000 Y:200000}\n  {X:300000 Y:400000}\n  {X:500000 Y:600000}\n  {X:700000 Y:800000}\n]"
	if got := Sprint(v); got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
