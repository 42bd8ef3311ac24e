package sshd_test

import (
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// In inproc mode a goroutine's panic in one user's script is reported on
// that script's stderr, and the host (every other session in the same
// process) goes on: yaegi would have let it end the process.
func TestGoroutinePanicInprocLeavesTheHost(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	prog := "import \"sync\"\nvar wg sync.WaitGroup\nwg.Add(1)\nfunc work() { defer wg.Done(); panic(\"boom\") }\ngo work()\nwg.Wait()\n"
	r := h.Run(t, "alice", "", prog)
	if r.Status != 0 {
		t.Errorf("script: %+v; want it to end normally", r)
	}
	// The report is written by the goroutine after wg.Done ran: it may come
	// after the script ended, so only the host's survival is asserted
	// here; its text is TestGoroutinePanicIsReportedAndTheProcessGoesOn's.
	if r := h.Run(t, "bob", "", "import \"fmt\"\nfmt.Println(40 + 2)\n"); strings.TrimSpace(r.Stdout) != "42" || r.Status != 0 {
		t.Errorf("another user after the panic: %+v; want 42", r)
	}
}
