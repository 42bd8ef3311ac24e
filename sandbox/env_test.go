package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

var testEnv = []string{"LANG=C.UTF-8", "TERM=xterm-256color", "SSH_ORIGINAL_COMMAND=eval 1+1", "HOMEY=x=y"}

// envCells print what the code sees of testEnv, then set a variable.
const envCells = `import "os"
----
os.Getenv("LANG") + "|" + os.Getenv("TERM") + "|" + os.Getenv("SSH_ORIGINAL_COMMAND") + "|" + os.Getenv("HOMEY")
----
_, ok := os.LookupEnv("NOT_SENT")
----
ok
----
os.Setenv("REPLHOST_TEST_SET_BY_CODE", "1")
----
os.Getenv("REPLHOST_TEST_SET_BY_CODE")
----
strings.HasSuffix(os.Getenv("HOME"), "files")
`

const envWant = `"C.UTF-8|xterm-256color|eval 1+1|x=y"
false
<nil>
"1"
true
`

// The session's environment reaches its code through os.Getenv in each
// kind of evaluator: a worker started for the session, a pool's idle
// worker (its interpreter made before the session was known) and an
// in-process interpreter; the code's Setenv stays in its interpreter, the
// host process's environment untouched.
func TestSessionEnvReachesTheCode(t *testing.T) {
	cells := strings.Split(strings.Replace(envCells, "import \"os\"", "import (\"os\"; \"strings\")", 1), "\n----\n")
	root := t.TempDir()

	fresh, freshOut := startWorker(t, root, WorkerOptions{Env: testEnv})

	p := NewPool(PoolOptions{Size: 1})
	defer p.Close()
	waitUntil(t, "an idle worker", func() bool { return p.Idle() == 1 })
	poolOut := &syncBuffer{}
	pooled, err := p.Get(context.Background(), WorkerOptions{Dir: sessionDir(t, root), Memory: testMemory, Stdout: poolOut, Stderr: poolOut, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	defer pooled.Close()

	inOut := &syncBuffer{}
	in, err := NewInterp(Options{Dir: sessionDir(t, root), Env: testEnv, Stdout: inOut, Stderr: inOut})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()

	for _, c := range cells {
		mustEval(t, fresh, c, true)
		mustEval(t, pooled, c, true)
		if err := in.Eval(context.Background(), c, true); err != nil {
			t.Fatalf("in-process Eval(%q): %v", c, err)
		}
	}
	for name, out := range map[string]*syncBuffer{"worker": freshOut, "pool worker": poolOut, "in-process": inOut} {
		if got := out.String(); got != envWant {
			t.Errorf("%s: output %q; want %q", name, got, envWant)
		}
	}
	if v, ok := os.LookupEnv("REPLHOST_TEST_SET_BY_CODE"); ok {
		t.Errorf("the host's environment has the code's variable (%q)", v)
	}
}

func TestCheckEnv(t *testing.T) {
	many := make([]string, MaxEnvVars+1)
	for i := range many {
		many[i] = fmt.Sprintf("V%d=1", i)
	}
	for _, tc := range []struct {
		name string
		env  []string
		ok   bool
	}{
		{"none", nil, true},
		{"locale-and-term", []string{"LANG=C", "LC_ALL=C.UTF-8", "TERM=xterm", "_X1="}, true},
		{"no-equals", []string{"LANG"}, false},
		{"empty-name", []string{"=x"}, false},
		{"digit-first", []string{"1X=a"}, false},
		{"dash-in-name", []string{"LC-ALL=a"}, false},
		{"nul-in-name", []string{"LC_\x00=a"}, false},
		{"nul-in-value", []string{"LANG=a\x00b"}, false},
		{"home", []string{"HOME=/root"}, false},
		{"too-many", many, false},
		{"too-big", []string{"LANG=" + strings.Repeat("x", MaxEnvBytes)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEnv(tc.env)
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrBadEnv) {
				t.Errorf("CheckEnv: %v; want ok %v", err, tc.ok)
			}
		})
	}
}

// A bad environment starts no evaluator: one clear error.
func TestBadEnvStartsNothing(t *testing.T) {
	bad := []string{"LANG=a\x00b"}
	if _, err := NewInterp(Options{Env: bad}); !errors.Is(err, ErrBadEnv) {
		t.Errorf("NewInterp: %v; want ErrBadEnv", err)
	}
	w, err := StartWorker(context.Background(), WorkerOptions{Dir: sessionDir(t, t.TempDir()), Memory: testMemory, Env: bad})
	if !errors.Is(err, ErrBadEnv) {
		t.Errorf("StartWorker: %v; want ErrBadEnv", err)
	}
	if w != nil {
		w.Close()
	}
}
