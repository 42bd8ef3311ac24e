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
	if raceEnabled() {
		// yaegi's own data race between a goroutine's end and its
		// interpreter (run.go:1922) would be reported as this test's;
		// sandbox's TestGoroutinePanicIsReportedAndTheProcessGoesOn checks
		// the same in a child process under -race.
		t.Skip("yaegi's own data race in goroutines; run without -race")
	}
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
