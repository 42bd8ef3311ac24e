// Package workerbuild builds the worker binary (cmd/replhost-worker) for
// tests and benchmarks the way the running binary, a test binary, was
// built (race detector, tags, cgo, flags): a host must find a worker
// binary's build settings equal to its own to start it (sandbox's
// binaryPin).
package workerbuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// Package is the worker binary's import path.
const Package = "github.com/replhost/replhost/cmd/replhost-worker"

var shared struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Binary returns the path of a worker binary built like the running
// binary, building it on the first call of the process into a directory
// that Cleanup removes.
func Binary(tb testing.TB) string {
	tb.Helper()
	s := &shared
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "replhost-worker-"); s.err == nil {
			s.path = filepath.Join(s.dir, "replhost-worker")
			s.err = Build(s.path, "")
		}
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.path
}

// Cleanup removes what Binary built; call it after m.Run in TestMain.
func Cleanup() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// Build builds the worker binary into out from the module in dir ("": the
// current directory's module), like the running binary plus extra go
// build flags.
func Build(out, dir string, extra ...string) error {
	flags, env := Settings()
	args := append([]string{"build", "-o", out}, flags...)
	args = append(append(args, extra...), Package)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

// Settings returns the go build flags and the environment that reproduce
// the running binary's build settings.
func Settings() (flags, env []string) {
	flags = []string{"-buildvcs=false"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return flags, nil
	}
	for _, s := range bi.Settings {
		switch k := s.Key; {
		case k == "-race" || k == "-trimpath" || k == "-msan" || k == "-asan":
			if s.Value == "true" {
				flags = append(flags, k)
			}
		case k == "-tags" || k == "-gcflags" || k == "-ldflags" || k == "-asmflags" || k == "-buildmode":
			flags = append(flags, k+"="+s.Value)
		case strings.HasPrefix(k, "CGO_") || strings.HasPrefix(k, "GO") && k != "GOOS" && k != "GOARCH":
			env = append(env, k+"="+s.Value)
		}
	}
	return flags, env
}
