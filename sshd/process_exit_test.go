package sshd_test

import (
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

const testingMainScript = `package main

import "testing"

func TestOne(t *testing.T) {}

func main() {
	testing.Main(func(pat, str string) (bool, error) { return true, nil }, []testing.InternalTest{{Name: "TestOne", F: TestOne}}, nil, nil)
}
`

// A script ends as the program would under go run, also where its worker
// process ends: compiled code's output and os.Exit (testing.Main), os.Exit
// in a goroutine, a goroutine's panic (exit 2). A session whose worker
// exited so is restored for its next cell.
func TestScriptExitsAsTheProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	h := testhost.Start(t, testhost.Options{Process: true})
	for _, tt := range []struct {
		name, script, stdout, stderr string
		status                       int
	}{
		{"testing-main-prints-pass-and-exits-0", testingMainScript, "PASS\n", "", 0},
		{"os-exit-in-a-goroutine", "import (\"fmt\"; \"os\"; \"time\")\nfmt.Println(\"before\")\ngo func() { os.Exit(3) }()\ntime.Sleep(time.Minute)\n", "before\n", "", 3},
		{"goroutine-panic-exits-2", "import (\"fmt\"; \"time\")\nfmt.Println(\"before\")\ngo func() { panic(\"gp\") }()\ntime.Sleep(time.Minute)\n", "before\n", "panic: gp", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Run(t, "alice", "", tt.script)
			if r.Status != tt.status || r.Stdout != tt.stdout || !strings.Contains(r.Stderr, tt.stderr) {
				t.Errorf("got %+v; want status %d, stdout %q, stderr holding %q", r, tt.status, tt.stdout, tt.stderr)
			}
		})
	}

	id := newSession(t, h, "alice")
	mustEval(t, h, "alice", id, "kept := 42")
	r := h.Run(t, "alice", "eval --session "+id+` import "testing"; testing.Main(func(pat, str string) (bool, error) { return true, nil }, nil, nil, nil)`, "")
	if r.Status != 0 || !strings.HasSuffix(r.Stdout, "PASS\n") {
		t.Errorf("testing.Main in a session: %+v; want PASS and status 0", r)
	}
	if r := h.Run(t, "alice", "eval --session "+id+" kept", ""); r.Stdout != "42\n" {
		t.Errorf("after its worker exited the session lost its state: %+v", r)
	}
}
