package sandbox

import (
	"strconv"
	"strings"
	"testing"
)

// The worker holds the protocol's two sockets (one a direction) at
// descriptors above 256, and nothing at fd 3 or fd 4 where they came.
func TestWorkerProtocolSocketsMoved(t *testing.T) {
	w, out := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, `import ("fmt"; "os")
for fd := 0; fd < 1<<16; fd++ {
	if l, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil {
		fmt.Println(fd, l)
	}
}`, false)
	var sockets []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		fd, link, _ := strings.Cut(line, " ")
		n, err := strconv.Atoi(fd)
		if err != nil {
			t.Fatalf("line %q", line)
		}
		if n == 3 || n == 4 {
			t.Errorf("fd %d is open in the worker: %s", n, link)
		}
		if strings.HasPrefix(link, "socket:") {
			sockets = append(sockets, n)
		}
	}
	if len(sockets) != 2 || sockets[0] < 256 || sockets[1] < 256 {
		t.Errorf("the worker's sockets are at %v; want two at 256 or above", sockets)
	}
}
