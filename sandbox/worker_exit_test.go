package sandbox

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// awaitExit returns only once the child has exited (it is a zombie then,
// which a non-blocking wait4 reaps), and cmd.Wait still reports its status.
func TestAwaitExitReturnsOnceTheChildExited(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go stdin.Close() // cat exits at end of input, at some point after awaitExit begins
	awaitExit(cmd.Process.Pid)
	// WNOWAIT leaves the zombie for cmd.Wait to reap.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
		t.Fatalf("waitid: %v", err)
	}
	if info.Signo == 0 {
		t.Fatal("awaitExit returned while the child was still running")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Wait after awaitExit: %v", err)
	}
}
