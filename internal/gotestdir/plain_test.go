package gotestdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// runPlain runs c as `yaegi run FILE` in an empty folder, as a user would.
func runPlain(yaegi string, c Case, timeout time.Duration) (Outcome, error) {
	dir, err := os.MkdirTemp("", "gotestdir-plain-")
	if err != nil {
		return Outcome{}, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, yaegi, "run", c.Path)
	cmd.Dir = dir
	cmd.Stdout = &limitedBuffer{buf: &stdout, max: MaxOutput}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	err = cmd.Run()
	// yaegi names the file by its path: cut the folder so the lists read the same on every machine
	errs := strings.ReplaceAll(stderr.String(), filepath.Dir(c.Path)+string(filepath.Separator), "")
	o := Outcome{Stdout: stdout.String(), Stderr: errs, TimedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case o.TimedOut:
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	case err != nil:
		return o, err
	}
	return o, nil
}

// TestNotBehindPlainYaegi compares the committed lists, no program run:
// the cases plain `yaegi run` passes and replhost fails must be exactly
// the committed behind-plain-yaegi list (the aim is none; each line says
// why, by hand, and -gotestdir.update keeps what was written). A case refused
// by design (the allowlist) is not behind: plain yaegi's CLI allows what
// replhost's sandbox refuses on purpose.
func TestNotBehindPlainYaegi(t *testing.T) {
	forEachCorpus(t, func(t *testing.T, corp Corpus, dir string) {
		host, err := LoadFailures(corp.FailuresFile())
		if err != nil {
			t.Fatal(err)
		}
		plain, err := LoadFailures(corp.PlainFile())
		if err != nil {
			t.Fatal(err)
		}
		if len(plain) == 0 {
			t.Fatalf("%s: no plain-yaegi list; run scripts/conformance update -gotestdir.corpus %s -gotestdir.target plain", corp.PlainFile(), corp.Name)
		}
		behind := map[string]Failure{}
		for name, f := range host {
			if _, plainFails := plain[name]; plainFails || strings.HasPrefix(f.Cause, "refused") {
				continue
			}
			behind[name] = f
		}
		recorded, err := LoadFailures(corp.BehindFile())
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			for name, r := range recorded { // keep the why written by hand for what is still behind
				if _, ok := behind[name]; ok {
					behind[name] = r
				}
			}
			header := fmt.Sprintf("# Cases of the %s corpus that plain `yaegi run` passes and replhost fails (the aim: none).\n"+
				"# Derived from the two failure lists: go test ./internal/gotestdir -run TestNotBehindPlainYaegi -gotestdir.update\n", corp.Name)
			if err := SaveFailures(corp.BehindFile(), header, behind); err != nil {
				t.Fatal(err)
			}
			return
		}
		var diffs []string
		for name, f := range behind {
			if _, ok := recorded[name]; !ok {
				diffs = append(diffs, fmt.Sprintf("behind plain yaegi, not recorded: %s (%s: %s)", name, f.Cause, f.Detail))
			}
		}
		for name := range recorded {
			if _, ok := behind[name]; !ok {
				diffs = append(diffs, fmt.Sprintf("no longer behind plain yaegi: %s", name))
			}
		}
		sort.Strings(diffs)
		for _, d := range diffs {
			t.Error(d)
		}
		t.Logf("%d cases plain yaegi passes and replhost fails", len(behind))
	})
}
