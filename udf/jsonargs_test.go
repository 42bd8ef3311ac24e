package udf

import (
	"reflect"
	"testing"
)

type argsT struct{ A []int }

// argsFunc takes one argument of each kind the fast path knows, and one it doesn't.
func argsFunc(int, int8, uint16, bool, string, argsT, any) {}

func FuzzFastArgs(f *testing.F) {
	for _, seed := range []string{
		`[1, -2, 3, true, "abc", {"A":[1,2]}, null]`,
		` [ 0 ,0,0,false,"",{},[1,"x"]] `,
		`[1,2,3,true,"a\"b",{},1]`,
		`[1,2,3,true,"é",{},1]`,
		`[01,2,3,true,"a",{},1]`,
		`[+1,2,3,true,"a",{},1]`,
		`[1e3,2,3,true,"a",{},1]`,
		`[1,200,3,true,"a",{},1]`,
		`[1,2,-3,true,"a",{},1]`,
		`[-,2,3,true,"a",{},1]`,
		`[1,2,3,1,"a",{},1]`,
		`[1,2,3,true,"a",{},1,]`,
		`[1,2,3,true,"a",{},1] x`,
		`[1,2,3,true,"a",{]},1]`,
		`[1,2,3,true,"a",{},1 2]`,
		`[1,2,3,true,"a\tb",{},1]`,
		`[1,2,3,true,"a",{"A":[1,}]},1]`,
		`[1,2,3,true,"a]",{"A":"]"},"\\"]`,
		`[]`, `[`, ``, `{}`, `[,]`, `[1,,2]`,
	} {
		f.Add([]byte(seed))
	}
	fn := native(f, argsFunc)
	f.Fuzz(func(t *testing.T, rec []byte) {
		fast, slow := newCaller(fn), newCaller(fn)
		if !fast.fastArgs(rec) {
			return
		}
		if err := slow.jsonArgs(rec); err != nil {
			t.Fatalf("%q: fast path took it; encoding/json says %v", rec, err)
		}
		for i := range fast.args {
			if got, want := fast.args[i].Interface(), slow.args[i].Interface(); !reflect.DeepEqual(got, want) {
				t.Errorf("%q: argument %d: got %#v; want %#v", rec, i+1, got, want)
			}
		}
	})
}

func TestSplitArray(t *testing.T) {
	tests := []struct {
		name string
		rec  string
		want []string
		ok   bool
	}{
		{"empty", `[]`, nil, true},
		{"spaces", " [ 1 , \"a b\" ]\t", []string{"1", `"a b"`}, true},
		{"nested", `[[1,2],{"a":[3]},"],"]`, []string{"[1,2]", `{"a":[3]}`, `"],"`}, true},
		{"escaped-quote", `["a\",b"]`, []string{`"a\",b"`}, true},
		{"trailing-comma", `[1,]`, nil, false},
		{"empty-element", `[,1]`, nil, false},
		{"unclosed", `[1`, nil, false},
		{"not-an-array", `{"a":1}`, nil, false},
		{"after-the-end", `[1] 2`, nil, false},
		{"unbalanced", `[1}]`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elems, ok := splitArray([]byte(tt.rec), nil)
			var got []string
			for _, e := range elems {
				got = append(got, tt.rec[e[0]:e[1]])
			}
			if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
