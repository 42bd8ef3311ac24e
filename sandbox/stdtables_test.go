package sandbox

import (
	"context"
	"testing"
)

// A worker drops the process's standard symbol tables once its session's
// interpreter is made; imports answer as before: a refused package with
// its error line, an allowed one (and one the host added) works.
func TestWorkerDropsSharedTables(t *testing.T) {
	cases := []struct {
		name  string
		pool  bool
		allow []string
	}{
		{name: "started"},
		{name: "from-pool", pool: true},
		{name: "extra-allowed", allow: []string{"expvar"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w *Worker
			var out *syncBuffer
			if c.pool {
				p := NewPool(PoolOptions{Size: 1})
				defer p.Close()
				var err error
				out = &syncBuffer{}
				w, err = p.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, t.TempDir()), Memory: testMemory, Stdout: out, Stderr: out})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
			} else {
				w, out = startWorker(t, "", WorkerOptions{Allow: NewAllowlist(c.allow)})
			}
			st, err := w.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if st.SharedTables != 0 {
				t.Errorf("shared tables after init: %d; want 0", st.SharedTables)
			}
			err = w.Eval(context.Background(), `import "os/exec"`, false)
			if want := `1:8: package os/exec is not allowed in a session (the host's --allow-pkg adds packages)`; err == nil || err.Error() != want {
				t.Errorf("import os/exec: %v; want %s", err, want)
			}
			mustEval(t, w, `import "strings"`, false)
			mustEval(t, w, `strings.ToUpper("ok")`, true)
			if c.allow != nil {
				mustEval(t, w, `import "expvar"`, false)
				mustEval(t, w, `expvar.NewInt("n").Value()`, true)
			}
			want := "\"OK\"\n"
			if c.allow != nil {
				want += "0\n"
			}
			if got := out.String(); got != want {
				t.Errorf("output %q; want %q", got, want)
			}
			if cands := w.Complete("strings.ToUpperS"); len(cands) != 1 || cands[0] != "strings.ToUpperSpecial" {
				t.Errorf("completions of strings.ToUpperS: %q; want [strings.ToUpperSpecial]", cands)
			}
		})
	}
}
