package testhost

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// ProtoCase is a cell that tries a route from the code to the worker's
// protocol socket (or any raw descriptor): it must fail with Want in the
// error line, the session going on.
type ProtoCase struct {
	Name, Code, Want string
}

// ProtoCases are the descriptor routes, each one line for eval --session.
var ProtoCases = []ProtoCase{
	{"os-newfile", `import "os"; os.NewFile(3, "proto").Write([]byte("r"))`, "NewFile"},
	{"reflect-newat", `import ("os"; "reflect"); f, _ := os.Create("x"); reflect.NewAt(reflect.TypeOf(0), reflect.ValueOf(f).Elem().Field(0).UnsafePointer()).Elem().SetInt(3)`, "NewAt"},
	{"reflect-unexported-fd", `import ("os"; "reflect"); f, _ := os.Create("x"); reflect.ValueOf(f).Elem().Field(0).Elem().FieldByName("pfd").FieldByName("Sysfd").SetInt(3)`, "unexported field"},
	{"dev-fd-3", `import "os"; if f, err := os.OpenFile("/dev/fd/3", os.O_RDWR, 0); err == nil { if st, _ := f.Stat(); st.Mode()&os.ModeSocket != 0 { panic("opened the socket") } }; panic("fd 3 is no socket")`, "fd 3 is no socket"},
	{"proc-self-fd-sockets", `import ("fmt"; "os"; "strings"); for fd := 0; fd < 1<<16; fd++ { n := fmt.Sprint("/proc/self/fd/", fd); if l, err := os.Readlink(n); err == nil && strings.HasPrefix(l, "socket:") { if f, err := os.OpenFile(n, os.O_RDWR, 0); err == nil { f.Close(); panic("opened the socket") } } }; panic("no socket opened")`, "no socket opened"},
	{"import-syscall", `import "syscall"; syscall.Write(3, []byte("r"))`, "not allowed"},
}

// Canary is another user's session that counts every 50 ms while hostile
// code runs elsewhere: each beat must answer with the next number.
type Canary struct {
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex // guards the fields below
	beats   int
	slowest time.Duration
	err     error
}

// StartCanary sets n := 0 in session id on c and starts counting.
func StartCanary(tb testing.TB, c *gossh.Client, id string) *Canary {
	tb.Helper()
	if r := RunOn(tb, c, "eval --session "+id+" n := 0", ""); r.Status != 0 {
		tb.Fatalf("canary: %+v", r)
	}
	k := &Canary{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for want := 1; ; want++ {
			select {
			case <-k.stop:
				return
			case <-tick.C:
			}
			start := time.Now()
			out, err := k.eval(c, "eval --session "+id+" n++; n")
			k.mu.Lock()
			k.slowest = max(k.slowest, time.Since(start))
			if err != nil || strings.TrimSpace(out) != strconv.Itoa(want) {
				k.err = fmt.Errorf("beat %d: %q, %v", want, out, err)
				k.mu.Unlock()
				return
			}
			k.beats++
			k.mu.Unlock()
		}
	}()
	return k
}

func (k *Canary) eval(c *gossh.Client, cmd string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	out, err := s.Output(cmd)
	return string(out), err
}

// Stop ends the canary and fails tb unless it beat at least once and never
// missed.
func (k *Canary) Stop(tb testing.TB) {
	tb.Helper()
	close(k.stop)
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil || k.beats == 0 {
		tb.Errorf("canary: %d beats, %v", k.beats, k.err)
	}
	tb.Logf("canary: %d beats, slowest %v", k.beats, k.slowest)
}
