package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// unsafe.Sizeof, Alignof and Offsetof at the prompt of a real session (a
// worker process): gc's amd64 values, what `go run` prints; unsafe.Pointer
// is refused with the line a denied import always had, and the session goes on.
func TestPromptUnsafeConstants(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	term := h.Terminal(t, "alice", "")
	term.Expect(`go> `)
	term.Send("import \"unsafe\"\r")
	term.Expect(`go> `)
	term.Send("type R struct { a bool; s any; b int16 }\r")
	term.Expect(`go> `)
	term.Send("var r R\r")
	term.Expect(`go> `)
	term.Send("unsafe.Sizeof(r)\r")
	term.Expect(`\r\n32\r\n`)
	term.Send("unsafe.Offsetof(r.b) + unsafe.Alignof(r.s)\r")
	term.Expect(`\r\n32\r\n`)
	term.Send("p := unsafe.Pointer(&r)\r")
	term.Expect(`\r\nerror: 1:6: package unsafe is not allowed in a session \(the host's --allow-pkg adds packages\)\r\n`)
	term.Send("unsafe.Sizeof([4]int16{})\r")
	term.Expect(`\r\n8\r\n`)
}
