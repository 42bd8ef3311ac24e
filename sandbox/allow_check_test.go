package sandbox

import (
	"strings"
	"testing"
)

func TestCheckAllowPkg(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []string
		want    string // "" : accepted
	}{
		{"net-and-http", []string{"net", "net/http"}, ""},
		{"net-tree", []string{"net/..."}, ""},
		{"os-exec", []string{"os/exec"}, "--allow-pkg os/exec: refused"},
		{"runtime-debug", []string{"runtime/debug"}, ""},
		{"typo", []string{"nett/htttp"}, "--allow-pkg nett/htttp: not a standard package"},
		{"empty-tree", []string{"nett/..."}, "no standard package is under nett"},
		{"module-path", []string{"github.com/x/y"}, "not a standard package"},
		{"unsafe", []string{"unsafe"}, "--allow-pkg unsafe: refused"},
		{"syscall", []string{"syscall"}, "--allow-pkg syscall: refused"},
		{"second-bad", []string{"net", "unsafe"}, "unsafe: refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAllowPkg(tc.entries)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v; want accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}
