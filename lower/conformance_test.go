package lower_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/replhost/replhost/lower"
	"github.com/replhost/replhost/lower/conformance"
)

// knownFailuresFile lists, one name per line (a tab, then why), every case
// that fails through lower plus yaegi; TestConformanceLowered fails when the
// failing set differs from it either way.
const knownFailuresFile = "testdata/conformance/known_failures.tsv"

// evalTimeout bounds one piece of a script, so a case that hangs in the
// interpreter fails instead of stalling the suite.
const evalTimeout = 20 * time.Second

// yaegiEvalTo runs a script in a fresh interpreter, piece by piece as the
// REPL does, writing its output to stdout; with lowering, the script is
// first one cell of a new session.
func yaegiEvalTo(lowered bool, stdout, stderr io.Writer) func(string) (string, error) {
	return func(script string) (out string, err error) {
		i := interp.New(interp.Options{Stdout: stdout, Stderr: stderr, Unrestricted: false})
		if err := i.Use(stdlib.Symbols); err != nil {
			return "", err
		}
		if err := i.Use(lower.Runtime); err != nil {
			return "", err
		}
		if err := i.Use(lower.Symbols); err != nil {
			return "", err
		}
		src := script
		if lowered {
			src, err = lower.NewSession(lower.Options{}).Lower(script)
			if err != nil {
				return "", fmt.Errorf("lower: %w", err)
			}
		}
		for _, piece := range lower.Split(src) {
			if err := evalPiece(i, piece); err != nil {
				return "", err
			}
		}
		return "", nil
	}
}

func evalPiece(i *interp.Interpreter, piece string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("interpreter panic: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), evalTimeout)
	defer cancel()
	_, err = i.EvalWithContext(ctx, piece)
	return err
}

// TestConformanceChild runs one case in a process of its own (a panic in
// an interpreted goroutine ends the whole process, see PITFALLS.md); the
// suite tests start it once per case.
func TestConformanceChild(t *testing.T) {
	name := os.Getenv("CONF_CASE")
	if name == "" {
		t.Skip("started by the conformance suite only")
	}
	cases, err := conformance.Load("testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name == name {
			_, err := yaegiEvalTo(os.Getenv("CONF_LOWERED") == "1", os.Stdout, os.Stderr)(c.Script)
			res := childResult{}
			if err != nil {
				res.Err = err.Error()
			}
			json.NewEncoder(os.Stdout).Encode(res)
			return
		}
	}
	t.Fatalf("no case %q", name)
}

type childResult struct {
	Out, Err string
}

// isolatedEval runs a case in a child test process.
func isolatedEval(t *testing.T, lowered bool, name string) func(string) (string, error) {
	return func(string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConformanceChild$", "-test.count=1")
		flag := "0"
		if lowered {
			flag = "1"
		}
		cmd.Env = append(os.Environ(), "CONF_CASE="+name, "CONF_LOWERED="+flag)
		out, err := cmd.Output()
		// The case's output comes first, then one JSON line with its error.
		text := string(out)
		if i := strings.LastIndex(text, "\n{\"Out\""); i >= 0 || strings.HasPrefix(text, "{\"Out\"") {
			var res childResult
			line, _, _ := strings.Cut(text[i+1:], "\n")
			if json.Unmarshal([]byte(line), &res) == nil {
				if res.Err != "" {
					return text[:i+1], errors.New(res.Err)
				}
				return text[:i+1], nil
			}
		}
		return text, fmt.Errorf("case process died: %v", err)
	}
}

func runSuite(t *testing.T, lowered bool) []conformance.Result {
	t.Helper()
	cases, err := conformance.Load("testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	if name := os.Getenv("CASE"); name != "" {
		var only []conformance.Case
		for _, c := range cases {
			if strings.Contains(c.Name, name) {
				only = append(only, c)
			}
		}
		cases = only
	}
	// Two case processes at a time: they are independent, and the machine
	// has two cores.
	results := make([]conformance.Result, len(cases))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, c := range cases {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = conformance.Run([]conformance.Case{c}, isolatedEval(t, lowered, c.Name))[0]
		})
	}
	wg.Wait()
	return results
}

func TestConformanceLowered(t *testing.T) {
	known, err := conformance.LoadKnownFailures(knownFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	results := runSuite(t, true)
	for _, p := range conformance.CheckKnown(results, known) {
		t.Errorf("%s (%s)", p, knownFailuresFile)
	}
	for _, r := range results {
		if !r.Pass() {
			t.Logf("known failure %s: %s", r.Case.Name, r.Reason())
		}
	}
	t.Logf("lowered: %d/%d cases pass", conformance.Passed(results), len(results))
}

func TestConformancePlainYaegi(t *testing.T) {
	if testing.Short() || raceEnabled() {
		t.Skip("comparison only")
	}
	results := runSuite(t, false)
	for _, r := range results {
		if !r.Pass() {
			t.Logf("FAIL %s: %s", r.Case.Name, r.Reason())
		}
	}
	t.Logf("plain yaegi: %d/%d cases pass", conformance.Passed(results), len(results))
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
