package sshd_test

import (
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/modules"
	"github.com/replhost/replhost/modules/modtest"
	"github.com/replhost/replhost/repl"
)

// Two sessions, two versions of one module, each session's worker importing
// its own; a module the interpreter cannot run is refused at :get.
func TestGetModulesPerSession(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	f, err := modules.New(modules.Config{Proxy: p.URL(), SumDB: p.SumDB(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := testhost.Start(t, testhost.Options{Process: true, Repl: repl.Config{Modules: f}})

	alice := h.Terminal(t, "alice", "")
	alice.Expect(`go> `)
	bob := h.Terminal(t, "bob", "")
	bob.Expect(`go> `)

	alice.Send(":get example.com/greet@v1.0.0\r")
	alice.Expect(`added example.com/greet@v1\.0\.0 \(with example\.com/words@v1\.0\.0\).*\r\n.*go> `)
	bob.Send(":get example.com/greet@v1.1.0\r")
	bob.Expect(`added example.com/greet@v1\.1\.0 \(with example\.com/words@v1\.2\.0\).*\r\n.*go> `)

	alice.Send("import \"example.com/greet\"; greet.Greet(\"x\")\r")
	alice.Expect(`"hello, x"\r\n.*go> `)
	bob.Send("import \"example.com/greet\"; greet.Greet(\"x\")\r")
	bob.Expect(`"hi! x"\r\n.*go> `)

	bob.Send(":get example.com/cgomod@v1.0.0\r")
	bob.Expect(`error: :get example.com/cgomod@v1.0.0: example.com/cgomod@v1.0.0: package example.com/cgomod uses cgo.*\r\n.*go> `)
	bob.Send("greet.Greet(\"y\")\r")
	bob.Expect(`"hi! y"\r\n.*go> `)
}

// The exec form: artifacts get --session UUID MODULE@VERSION, then the
// session imports it; a refused module is one error line and status 1.
func TestArtifactsGet(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	f, err := modules.New(modules.Config{Proxy: p.URL(), SumDB: p.SumDB(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := testhost.Start(t, testhost.Options{Repl: repl.Config{Modules: f}})
	id := newSession(t, h, "alice")
	r := h.Run(t, "alice", "artifacts get --session "+id+" example.com/greet@v1.1.0", "")
	if r.Status != 0 || r.Stdout != "added example.com/greet@v1.1.0 (with example.com/words@v1.2.0)\n" {
		t.Fatalf("artifacts get: %+v", r)
	}
	mustEval(t, h, "alice", id, `import "example.com/greet"`)
	if r := h.Run(t, "alice", "eval --session "+id+` greet.Greet("z")`, ""); r.Stdout != "\"hi! z\"\n" && r.Stdout != "hi! z\n" {
		t.Errorf("greet after artifacts get: %+v", r)
	}
	r = h.Run(t, "alice", "artifacts get --session "+id+" example.com/cgomod@v1.0.0", "")
	if r.Status != 1 || !strings.Contains(r.Stderr, "package example.com/cgomod uses cgo") || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("cgo module: %+v; want one error line, status 1", r)
	}
	// Another user cannot fetch into alice's session.
	if r := h.Run(t, "bob", "artifacts get --session "+id+" example.com/greet@v1.0.0", ""); r.Status == 0 || !strings.Contains(r.Stderr, "no such session") {
		t.Errorf("bob into alice's session: %+v", r)
	}
}
