package sshd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/lower/conformance"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	gossh "golang.org/x/crypto/ssh"
)

// knownFailures lists the lower package's conformance cases that fail
// end to end, `ssh host < case`, through the Go front end: the suite
// asserts exactly these, never a share.
const knownFailures = "../lower/testdata/conformance/known_failures.tsv"

// caseTimeout bounds one case; a case that hangs fails instead of stalling
// the suite.
const caseTimeout = 30 * time.Second

// TestConformanceOverSSH runs every case of lower/testdata/conformance as a
// script piped to the real server (scripted mode, one throwaway session per
// case) and compares what it prints with what `go run` printed.
//
// Through the Go front end, a case that starts goroutines runs in a worker
// process, as replhost serves by default: in-process, yaegi's goroutines
// race with its next Eval, a data race of the interpreter that -race would
// report against the test. The other cases run in-process, where a session
// starts in microseconds rather than the worker's half second under -race.
// For comparison the suite also runs in-process without the front end
// (skipped under -race; lower's TestConformancePlainYaegi gives that
// figure too).
func TestConformanceOverSSH(t *testing.T) {
	cases, err := conformance.Load("../lower/testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("lowered", func(t *testing.T) {
		inproc := testhost.Start(t, testhost.Options{Repl: repl.Config{NoSync: true}}).Dial(t, "alice")
		workers := testhost.Start(t, testhost.Options{Process: true, Repl: repl.Config{NoSync: true}}).Dial(t, "alice")
		results := conformance.Run(cases, func(script string) (string, error) {
			if startsGoroutines.MatchString(script) {
				return runScript(workers, script)
			}
			return runScript(inproc, script)
		})
		known, err := conformance.LoadKnownFailures(knownFailures)
		if err != nil {
			t.Fatal(err)
		}
		report(t, "lowered", results)
		for _, p := range conformance.CheckKnown(results, known) {
			t.Error(p)
		}
	})
	t.Run("plain-yaegi", func(t *testing.T) {
		if raceEnabled() {
			t.Skip("yaegi's own data races in the goroutine cases; comparison only")
		}
		c := testhost.Start(t, testhost.Options{Repl: repl.Config{NoSync: true, NewEvaluator: plainYaegi()}}).Dial(t, "alice")
		results := conformance.Run(cases, func(script string) (string, error) { return runScript(c, script) })
		report(t, "plain yaegi", results)
	})
}

// startsGoroutines matches the scripts that start goroutines: go
// statements, sync.WaitGroup's Go, iter.Pull, and the timers of context
// and time.
var startsGoroutines = regexp.MustCompile(`(?m)(^|[^\w.])go\s+(func|\w+[.(])|\w\.Go\(|iter\.Pull|context\.With|time\.AfterFunc`)

// report logs the failures and the figure.
func report(t *testing.T, mode string, results []conformance.Result) {
	t.Helper()
	for _, r := range results {
		if !r.Pass() {
			t.Logf("FAIL %s: %s", r.Case.Name, r.Reason())
		}
	}
	pass := conformance.Passed(results)
	t.Logf("%s over ssh: %d/%d cases pass", mode, pass, len(results))
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// plainYaegi makes in-process interpreters with the default allowlist and
// without the Go front end.
func plainYaegi() repl.NewEvaluator {
	allow := sandbox.NewAllowlist(nil)
	return func(_ context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		return sandbox.NewInterp(sandbox.Options{Dir: spec.Dir, Allow: allow, Stdout: spec.Stdout, Stderr: spec.Stderr, NoLowering: true})
	}
}

// runScript pipes script to a shell session without a PTY: what it prints,
// and an error with its stderr if it exits non-zero.
func runScript(c *gossh.Client, script string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &out, &errOut, strings.NewReader(script)
	if err := s.Shell(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
	case <-time.After(caseTimeout):
		return out.String(), errors.New("timed out")
	}
	if err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("%s", msg)
	}
	return out.String(), nil
}
