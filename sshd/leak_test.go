package sshd_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// Goroutines return to their baseline after 100 sessions open and close,
// interactive and scripted.
func TestNoGoroutineLeakAfter100Sessions(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	warm := h.Terminal(t, "alice", "")
	warm.Expect("go> ")
	warm.Send(":quit\r")
	warm.Wait()
	warm.Close()
	settle()
	base := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		term := h.Terminal(t, "alice", "")
		term.Expect("go> ")
		term.Send("1+1\r")
		term.Expect(`\r\n2\r\n`)
		term.Send(":quit\r")
		term.Wait()
		term.Close()
		if r := h.Run(t, "bob", "", "x := 1\nx++\n"); r.Status != 0 {
			t.Fatalf("script %d: %+v", i, r)
		}
	}
	var now int
	for i := 0; i < 100; i++ { // bounded: up to 5 s for connections to wind down
		settle()
		if now = runtime.NumGoroutine(); now <= base+2 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines: %d before, %d after 100 sessions\n%s", base, now, buf[:runtime.Stack(buf, true)])
}

func settle() {
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
}
