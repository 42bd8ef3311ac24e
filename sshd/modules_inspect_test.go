package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/modules"
	"github.com/replhost/replhost/modules/modtest"
	"github.com/replhost/replhost/repl"
)

// :type and :doc see the modules a session fetched with :get, by path and
// by the name the session imported them by; two sessions with two
// versions of a module see each their own.
func TestInspectFetchedModules(t *testing.T) {
	p := modtest.New(t)
	p.Add("example.com/shapes", "v1.0.0", map[string]string{
		"shapes.go": "// Package shapes measures squares.\npackage shapes\n\n// Area is the area of a square of side s.\nfunc Area(s int) int { return s * s }\n",
	})
	p.Add("example.com/shapes", "v1.1.0", map[string]string{
		"shapes.go": "// Package shapes measures squares.\npackage shapes\n\n// Area is the area of a square of side s, in any unit.\nfunc Area(s float64) float64 { return s * s }\n",
	})
	f, err := modules.New(modules.Config{Proxy: p.URL(), SumDB: p.SumDB(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := testhost.Start(t, testhost.Options{Process: true, Repl: repl.Config{Modules: f}})
	for _, tc := range []struct{ version, want string }{
		{"v1.0.0", "func(s int) int\nint\nfunc Area(s int) int\n    Area is the area of a square of side s.\n" +
			"func Area(s int) int\n    Area is the area of a square of side s.\n"},
		{"v1.1.0", "func(s float64) float64\nfloat64\nfunc Area(s float64) float64\n    Area is the area of a square of side s, in any unit.\n" +
			"func Area(s float64) float64\n    Area is the area of a square of side s, in any unit.\n"},
	} {
		script := ":get example.com/shapes@" + tc.version + "\nimport \"example.com/shapes\"\n" +
			":type shapes.Area\n:type shapes.Area(2)\n:doc shapes.Area\n:doc example.com/shapes.Area\n"
		r := h.Run(t, "alice", "", script)
		want := "added example.com/shapes@" + tc.version + "; import it by its path (:reload picks up a new version of one already imported)\n" + tc.want
		if r.Status != 0 || r.Stdout != want {
			t.Errorf("%s: status %d, stderr %q, stdout:\n%s\nwant:\n%s", tc.version, r.Status, r.Stderr, r.Stdout, want)
		}
	}
	// A name the session did not import is no package.
	r := h.Run(t, "alice", "", ":doc shapes.Area\n")
	if r.Status != 1 || r.Stderr != "error: line 1: :doc: doc shapes: no such package in the session's classes/src or the standard library\n" {
		t.Errorf(":doc of a package not fetched: %+v", r)
	}
}
