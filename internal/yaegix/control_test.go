package yaegix

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// TestControlStopsALoop drives yaegi's own stop: a cell begun with Begin
// and stopped with Stop returns from Eval, an interpreted function called
// from Go is wrong until AfterStop, and the interpreter runs the next cell.
func TestControlStopsALoop(t *testing.T) {
	yi := newInterp(t, nil, nil)
	c, err := NewControl(yi)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval("var n int\nfunc seven() int { return 7 }"); err != nil {
		t.Fatal(err)
	}
	v, err := yi.Eval("seven")
	if err != nil {
		t.Fatal(err)
	}
	seven := v.Interface().(func() int)
	done := c.Begin()
	started := make(chan struct{})
	ended := make(chan error, 1)
	if err := yi.Use(interp.Exports{"sig/sig": {"Started": reflectValue(func() { close(started) })}}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "sig"`); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Started after the first n++: the stop cannot come before the loop ran
		_, err := yi.Eval("for { n++; if n == 1 { sig.Started() } }")
		ended <- err
	}()
	<-started
	c.Stop(done)
	<-ended // a stopped cell returns; its error is not part of the contract
	if got := seven(); got != 0 {
		t.Errorf("seven() right after a stop = %d; want yaegi's 0 (AfterStop may go)", got)
	}
	c.AfterStop()
	if got := seven(); got != 7 {
		t.Errorf("seven() after AfterStop = %d; want 7", got)
	}
	if v, err := yi.Eval("n > 0"); err != nil || !v.Bool() {
		t.Fatalf("after a stop: %v, %v; want true, nil", v, err)
	}
}

// TestControlForgetRoots: dropping the list of compiled trees keeps what
// earlier cells declared.
func TestControlForgetRoots(t *testing.T) {
	yi := newInterp(t, nil, nil)
	c, err := NewControl(yi)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval("func twice(x int) int { return 2 * x }"); err != nil {
		t.Fatal(err)
	}
	if len(*c.roots) == 0 {
		t.Fatal("yaegi kept no compiled trees: the roots field is not what Control expects")
	}
	c.ForgetRoots()
	if v, err := yi.Eval("twice(21)"); err != nil || v.Int() != 42 {
		t.Fatalf("twice(21) = %v, %v; want 42", v, err)
	}
}

// TestSetDir points an interpreter made without a GOPATH at one: a source
// package there imports, by its package clause's name, and HOME is the
// one given.
func TestSetDir(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "src", "greet-lib")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package greet\n\nfunc Hello() string { return \"hi\" }\n"
	if err := os.WriteFile(filepath.Join(pkg, "greet.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	yi := newInterp(t, nil, nil)
	if err := SetDir(yi, dir, "/home/of/session"); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "greet-lib"`); err != nil {
		t.Fatal(err)
	}
	if v, err := yi.Eval("greet.Hello()"); err != nil || v.String() != "hi" {
		t.Fatalf("greet.Hello() = %v, %v; want hi", v, err)
	}
	if _, err := yi.Eval(`import "os"`); err != nil {
		t.Fatal(err)
	}
	if v, err := yi.Eval(`os.Getenv("HOME")`); err != nil || v.String() != "/home/of/session" {
		t.Fatalf("HOME = %v, %v; want /home/of/session", v, err)
	}
}

// TestStopBeforeExecuteIsLost: Execute (Eval's second half) takes the run
// id afresh, so a Stop between Begin and the start of the run (while the
// cell compiles) does not stop it: the cell runs to its end. Hence Await
// stops it again until it returns.
func TestStopBeforeExecuteIsLost(t *testing.T) {
	yi := newInterp(t, nil, nil)
	c, err := NewControl(yi)
	if err != nil {
		t.Fatal(err)
	}
	finished := false
	if err := yi.Use(interp.Exports{"sig/sig": {"Finished": reflectValue(func() { finished = true })}}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "sig"`); err != nil {
		t.Fatal(err)
	}
	c.Stop(c.Begin())
	if _, err := yi.Eval("for i := 0; i < 1000; i++ {}; sig.Finished()"); err != nil {
		t.Fatal(err)
	}
	if !finished {
		t.Error("a cell stopped before it ran did not run: yaegi keeps the stop now, Await's repeats may go")
	}
}

// TestAwaitStopsALateStart: a cell that starts running after its Stop is
// stopped by Await.
func TestAwaitStopsALateStart(t *testing.T) {
	yi := newInterp(t, nil, nil)
	c, err := NewControl(yi)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	if err := yi.Use(interp.Exports{"sig/sig": {"Started": reflectValue(func() { close(started) })}}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "sig"`); err != nil {
		t.Fatal(err)
	}
	c.Stop(c.Begin()) // lost: the cell has not started (TestStopBeforeExecuteIsLost)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		yi.Eval("sig.Started(); for {}")
	}()
	<-started
	if !c.Await(ended, time.Minute) {
		t.Fatal("Await: the cell runs on")
	}
}

// TestSetEnv: entries added after interp.New reach the code's os.Getenv;
// HOME is not replaced.
func TestSetEnv(t *testing.T) {
	yi := newInterp(t, nil, nil, func(o *interp.Options) { o.Env = []string{"HOME=/home/of/session"} })
	if err := SetEnv(yi, []string{"USER=ana", "LANG=eo.UTF-8", "HOME=/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if _, err := yi.Eval(`import "os"`); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"USER": "ana", "LANG": "eo.UTF-8", "HOME": "/home/of/session"} {
		if v, err := yi.Eval("os.Getenv(" + strconv.Quote(name) + ")"); err != nil || v.String() != want {
			t.Errorf("os.Getenv(%q) = %v, %v; want %q", name, v, err, want)
		}
	}
}
