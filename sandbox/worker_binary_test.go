package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost"
	"github.com/replhost/replhost/internal/workerbuild"
)

// A worker of the worker binary (cmd/replhost-worker) runs a session as
// the test binary's workers do: confined, its output shown. No session's
// worker is asked for its sources (a probe was, once).
func TestWorkerBinaryServesASession(t *testing.T) {
	bin := workerbuild.Binary(t)
	root := t.TempDir()
	w, out := startWorker(t, root, WorkerOptions{Executable: bin, Users: testUsers})
	mustEval(t, w, `import "fmt"; fmt.Println("hi")`, false)
	mustEval(t, w, `1+2`, true)
	if got := out.String(); got != "hi\n3\n" {
		t.Errorf("output %q; want %q", got, "hi\n3\n")
	}
	out.Reset()
	err := w.Eval(context.Background(), `import "os"; _, err := os.ReadFile("/etc/passwd"); fmt.Println(err != nil)`, false)
	if err != nil || out.String() != "true\n" {
		t.Errorf("reading /etc/passwd: %v, %q; want it refused (Landlock)", err, out.String())
	}
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", w.PID())); exe != bin {
		t.Errorf("worker runs %q; want %q", exe, bin)
	}
	p, err := pinBinary(bin)
	if err != nil || p.own || !p.verified.Load() {
		t.Fatalf("pin of %s: %+v, %v; want another build than the host's, its sources verified", bin, p, err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", w.PID()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), workerSourcesVar) {
		t.Errorf("a session's worker's environment %q asks for its sources", env)
	}
}

// A worker binary built with other settings, or from other sources, is
// refused at its first worker's handshake with one line naming the
// difference and what to do; one replaced while the host runs is refused
// as a replaced host binary is. The host goes on starting good workers.
func TestWorkerBinaryOfAnotherBuildRefused(t *testing.T) {
	good := workerbuild.Binary(t)
	dir := t.TempDir()
	tagged := filepath.Join(dir, "tagged", WorkerBinaryName)
	if err := workerbuild.Build(tagged, "", "-tags=replhost_other_build"); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "edited", WorkerBinaryName)
	buildEdited(t, edited)
	pinned := filepath.Join(dir, "pinned", WorkerBinaryName)
	copyFile(t, good, pinned)

	for _, tt := range []struct {
		name, exe string
		want      []string
	}{
		{"other-tags", tagged, []string{tagged, `-tags="replhost_other_build"`, "go install ./cmd/..."}},
		{"other-sources", edited, []string{edited, "built from other sources", sourcesDigest(), "go install ./cmd/..."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StartWorker(context.Background(), WorkerOptions{Dir: sessionDir(t, dir), Executable: tt.exe})
			checkOneLine(t, err, tt.want)
		})
	}
	t.Run("replaced", func(t *testing.T) {
		w, _ := startWorker(t, dir, WorkerOptions{Executable: pinned})
		mustEval(t, w, "1", true)
		// As `go install` does: a new file renamed over the old one.
		copyFile(t, edited, pinned+".new")
		if err := os.Rename(pinned+".new", pinned); err != nil {
			t.Fatal(err)
		}
		_, err := StartWorker(context.Background(), WorkerOptions{Dir: sessionDir(t, dir), Executable: pinned})
		checkOneLine(t, err, []string{pinned, "replaced while the host runs? restart the host"})
	})
	w, out := startWorker(t, dir, WorkerOptions{Executable: good})
	mustEval(t, w, "40+2", true)
	if out.String() != "42\n" {
		t.Errorf("a good worker after the refusals shows %q", out.String())
	}
}

func checkOneLine(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("StartWorker: no error; want the worker refused")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is more than one line", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q; want it to contain %q", msg, w)
		}
	}
}

// buildEdited builds into out a worker binary from a copy of the worker's
// sources with one comment added to package sandbox: the build info of the
// test binary's own worker binary, other sources.
func buildEdited(t *testing.T, out string) {
	t.Helper()
	src := t.TempDir()
	var err error
	for _, f := range []string{"go.mod", "go.sum", "sources.go"} {
		copyFileErr(filepath.Join("..", f), filepath.Join(src, f), &err)
	}
	for _, d := range replhost.WorkerSourceDirs {
		copyTree(filepath.Join("..", d), filepath.Join(src, d), &err)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(src, "sandbox", "doc.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "\n// Another build's comment.")
	f.Close()
	if err := workerbuild.Build(out, src); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	var err error
	copyFileErr(from, to, &err)
	if err != nil {
		t.Fatal(err)
	}
}

// copyFileErr copies from to to (mode kept, folders made) unless *errp is
// set, and sets it on failure.
func copyFileErr(from, to string, errp *error) {
	if *errp != nil {
		return
	}
	*errp = func() error {
		in, err := os.Open(from)
		if err != nil {
			return err
		}
		defer in.Close()
		fi, err := in.Stat()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}()
}

// copyTree copies the regular files below from to to.
func copyTree(from, to string, errp *error) {
	if *errp != nil {
		return
	}
	*errp = filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		copyFileErr(p, filepath.Join(to, rel), &err)
		return err
	})
}
