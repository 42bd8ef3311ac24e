package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// Issue 14's findings on a real terminal, those no other screen test
// covers: a failed import leaves the interpreter usable (later imports
// work without :reload); the session's environment reaches its code at an
// interactive prompt (TERM of the PTY, USER).
func TestScreenAfterAFailedImport(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	s, _ := openScreen(t, h, 100, 30)
	s.Type(`import "nosuch/pkg"`)
	s.Keys("Enter")
	s.WaitTail(`go> import "nosuch/pkg"`, `error: 1:8: import "nosuch/pkg" error: unable to find source related to: "nosuch/pkg"`, "go>")
	run(s, `import ("os"; "strings")`)
	for _, tc := range []struct{ cell, want string }{
		{`strings.ToUpper("ok")`, `"OK"`},
		{`os.Getenv("USER")`, `"alice"`},
		{`os.Getenv("TERM") != ""`, "true"}, // the PTY's, as ssh -t sent it
	} {
		s.Type(tc.cell)
		s.Keys("Enter")
		s.WaitTail("go> "+tc.cell, tc.want, "go>")
	}
}
