package gotestdir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"time"
)

// MaxOutput bounds what a case may print, under the toolchain and through
// the host alike; past it the output is cut and the case counts as "output
// too long".
const MaxOutput = 1 << 20

// Want is what the compiled program did.
type Want struct {
	Hash   string `json:"hash"`             // sha256 of the source it was computed from
	Stdout string `json:"stdout,omitempty"` // what it printed on stdout
	Exit   int    `json:"exit"`             // its exit status
	Build  string `json:"build,omitempty"`  // why it did not build (then it is not a case)
}

// Truth is the cached outcome of every case under one Go version.
type Truth struct {
	Go    string          `json:"go"`
	Cases map[string]Want `json:"cases"`
}

// TruthFile is where the truth for the running toolchain is kept.
func TruthFile(dir string) string {
	return filepath.Join(dir, "truth-"+runtime.Version()+".json")
}

// LoadTruth reads a truth file; a missing file is an empty truth.
func LoadTruth(path string) (*Truth, error) {
	t := &Truth{Go: runtime.Version(), Cases: map[string]Want{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Go != runtime.Version() {
		return nil, fmt.Errorf("%s is for %s, not %s", path, t.Go, runtime.Version())
	}
	return t, nil
}

// Save writes the truth, one case per line so diffs stay readable.
func (t *Truth) Save(path string) error {
	names := make([]string, 0, len(t.Cases))
	for n := range t.Cases {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"go\": %q, \"cases\": {\n", t.Go)
	for i, n := range names {
		k, _ := json.Marshal(n)
		v, err := json.Marshal(t.Cases[n])
		if err != nil {
			return err
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s: %s%s\n", k, v, sep)
	}
	b.WriteString("}}\n")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// IsCase reports whether the program is one of the corpus: it built, and
// it ran to exit status 0 outside Go's own test directory (a few read
// files beside themselves or run the go command; they are left out).
func (w Want) IsCase() bool { return w.Build == "" && w.Exit == 0 }

// Stale reports whether c has no truth computed from its current source.
func (t *Truth) Stale(c Case) bool {
	w, ok := t.Cases[c.Name]
	return !ok || w.Hash != c.Hash
}

// Compute builds c with the toolchain and runs it in a fresh directory,
// as `go run` would, with a timeout.
func Compute(ctx context.Context, c Case, timeout time.Duration) Want {
	w := Want{Hash: c.Hash}
	dir, err := os.MkdirTemp("", "gotestdir-")
	if err != nil {
		w.Build = err.Error()
		return w
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "prog")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, c.Path)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		w.Build = firstLine(string(out) + err.Error())
		return w
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	run := exec.CommandContext(rctx, bin)
	run.Dir = dir
	var out bytes.Buffer
	run.Stdout = &limitedBuffer{buf: &out, max: MaxOutput}
	err = run.Run()
	w.Stdout = out.String()
	var ee *exec.ExitError
	switch {
	case rctx.Err() != nil:
		w.Build = "timed out under the toolchain"
	case errors.As(err, &ee):
		w.Exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			w.Exit = 128 + int(ws.Signal()) // as a shell reports it
		}
	case err != nil:
		w.Build = err.Error()
	}
	return w
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func firstLine(s string) string {
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && !bytes.HasPrefix(t, []byte("#")) {
			return string(t)
		}
	}
	return s
}
