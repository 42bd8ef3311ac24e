package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// dialUser adds user name to the running host (addUser) and dials it.
func dialUser(tb testing.TB, h *hostProc, name string) *gossh.Client {
	tb.Helper()
	return dialAs(tb, h, name, readKey(tb, addUser(tb, h, name)))
}

// Through the real binary, every route from a cell to a raw descriptor
// (the worker's protocol socket) fails with one clear line; the session
// keeps its state, the host stays the same process, and another user's
// canary never misses a beat.
func TestDescriptorRoutesClosedWithCanary(t *testing.T) {
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	alice := dialHost(t, h)
	needTool(t, "ssh-keygen")
	bob := dialUser(t, h, "bob")
	r := testhost.RunOn(t, bob, "new", "")
	canary := testhost.StartCanary(t, bob, strings.TrimSpace(r.Stdout))
	id := newWithG(t, alice)
	for _, c := range testhost.ProtoCases {
		t.Run(c.Name, func(t *testing.T) {
			r := testhost.RunOn(t, alice, "eval --session "+id+" "+c.Code, "")
			if r.Status == 0 || !strings.Contains(r.Stderr, c.Want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
				t.Errorf("got %+v; want one error line with %q", r, c.Want)
			}
			expectOn(t, alice, "eval --session "+id+" g()", "42\n")
		})
	}
	canary.Stop(t)
	if h.cmd.ProcessState != nil {
		t.Fatalf("the host exited: %s", h.Log())
	}
	if log := h.Log(); strings.Contains(log, "panic") || strings.Contains(log, "protocol error") {
		t.Errorf("host log: %s", log)
	}
}
