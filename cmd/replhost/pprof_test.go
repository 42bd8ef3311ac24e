package main

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var pprofRE = regexp.MustCompile(`msg="pprof listening" addr=([0-9.:]+)`)

// --pprof-listen serves the host process's Go profiles (goroutines, heap,
// CPU, the execution trace) on its own address; without it nothing
// listens for them.
func TestPprofListen(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root, "--pprof-listen", "127.0.0.1:0")
	m := pprofRE.FindStringSubmatch(h.Log())
	if m == nil {
		t.Fatalf("no pprof listener in the log: %s", h.Log())
	}
	for path, want := range map[string]string{
		"/debug/pprof/goroutine?debug=1": "goroutine profile: total",
		"/debug/pprof/heap?debug=1":      "heap profile:",
		"/debug/pprof/cmdline":           "serve",
	} {
		resp, err := http.Get("http://" + m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %.200q; want 200 and %q", path, resp.StatusCode, body, want)
		}
	}
	h.Stop(t)

	h = startHostProc(t, root)
	if strings.Contains(h.Log(), "pprof listening") {
		t.Errorf("pprof listens without --pprof-listen: %s", h.Log())
	}
}
