package gotestdir

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	all     = flag.Bool("gotestdir.all", false, "run every case, not CI's part (every case whose name hashes to 0 mod 8)")
	update  = flag.Bool("gotestdir.update", false, "rewrite the failures file with what this run saw")
	jobs    = flag.Int("gotestdir.jobs", 3, "cases run at a time")
	timeout = flag.Duration("gotestdir.timeout", 60*time.Second, "bound on one case")
	only    = flag.String("gotestdir.run", "", "run only the cases whose name contains this")
	list    = flag.String("gotestdir.list", "", "run only the cases named in this file (one a line; # starts a comment), e.g. the failing ones after a fix")
	corpusF = flag.String("gotestdir.corpus", "", "the programs: go (GOROOT/test) or yaegi (yaegi's own _test folder); both when empty")
	target  = flag.String("gotestdir.target", "host", "what runs them: host (replhost, process mode) or plain (the yaegi CLI of go.mod's version)")
)

// flakyCause starts the cause of a case whose outcome depends on how
// goroutines are scheduled; it is kept in the list (with why) but either
// outcome is accepted. Written by hand, never by -gotestdir.update.
const flakyCause = "flaky"

// forEachCorpus runs f as a subtest for each corpus -gotestdir.corpus
// names (both when empty), skipping one whose programs are not here.
func forEachCorpus(t *testing.T, f func(t *testing.T, c Corpus, dir string)) {
	names := []string{"go", "yaegi"}
	if *corpusF != "" {
		if _, ok := Corpora[*corpusF]; !ok {
			t.Fatalf("-gotestdir.corpus %q: want go or yaegi", *corpusF)
		}
		names = []string{*corpusF}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c := Corpora[name]
			dir, err := c.Find()
			if err != nil {
				t.Skipf("no %s corpus here: %v", c.Name, err)
			}
			f(t, c, dir)
		})
	}
}

// inCIPart reports whether name is in the fixed part CI runs: an eighth of
// the corpus, chosen by the name's hash so it stays put as files come and go.
func inCIPart(name string) bool {
	sum := sha256.Sum256([]byte(name))
	return sum[0]%8 == 0
}

// TestGoTestDir runs the corpus's programs (Go's `// run` programs, or
// yaegi's _test ones) through the real replhost binary, each piped as
// `ssh host < file.go`, or through plain `yaegi run`, and compares stdout
// and exit status with the compiled program's. It fails when the set of
// failing cases or their causes differ from the committed list, either
// way: a new failure, or a fix not recorded.
func TestGoTestDir(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real programs through the real host")
	}
	forEachCorpus(t, runCorpus)
}

func runCorpus(t *testing.T, corp Corpus, dir string) {
	cases, err := corp.Select(dir)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := LoadTruth(corp.TruthFile())
	if err != nil {
		t.Fatal(err)
	}
	file, what := corp.FailuresFile(), "replhost (process mode, ssh host < file)"
	if *target == "plain" {
		file, what = corp.PlainFile(), "plain `yaegi run` of go.mod's version"
	}
	known, err := LoadFailures(file)
	if err != nil {
		t.Fatal(err)
	}
	named, err := loadNames(*list)
	if err != nil {
		t.Fatal(err)
	}
	var run []Case
	for _, c := range cases {
		if truth.Stale(c) {
			t.Fatalf("%s: no truth for its current source; run scripts/conformance truth -gotestdir.corpus %s", c.Name, corp.Name)
		}
		if !truth.Cases[c.Name].IsCase() {
			continue
		}
		if named != nil {
			if named[c.Name] {
				run = append(run, c)
			}
			continue
		}
		if (*all || inCIPart(c.Name)) && strings.Contains(c.Name, *only) {
			run = append(run, c)
		}
	}
	if len(run) == 0 {
		t.Skipf("no case of the %s corpus selected", corp.Name)
	}
	var runCase func(c Case) (Outcome, error)
	switch *target {
	case "host":
		h := startHost(t)
		runCase = func(c Case) (Outcome, error) { return h.script(c.Src, *timeout) }
	case "plain":
		yaegi := plainBin.build(t)
		runCase = func(c Case) (Outcome, error) { return runPlain(yaegi, c, *timeout) }
	default:
		t.Fatalf("-gotestdir.target %q: want host or plain", *target)
	}
	got := map[string]Failure{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, *jobs)
	for _, c := range run {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			o, err := runCase(c)
			if err != nil {
				o = Outcome{Stderr: "error: harness: " + err.Error(), Exit: -1}
			}
			f, ok := Judge(c.Name, truth.Cases[c.Name], o)
			if !ok {
				mu.Lock()
				got[c.Name] = f
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	var diffs []string
	for _, c := range run {
		g, failed := got[c.Name]
		k, wasKnown := known[c.Name]
		if wasKnown && strings.HasPrefix(k.Cause, flakyCause) {
			continue // its outcome depends on goroutine scheduling: recorded, not asserted
		}
		switch {
		case failed && !wasKnown:
			diffs = append(diffs, fmt.Sprintf("new failure %s: %s: %s", c.Name, g.Cause, g.Detail))
		case !failed && wasKnown:
			diffs = append(diffs, fmt.Sprintf("now passes %s (was %s)", c.Name, k.Cause))
		case failed && g.Cause != k.Cause:
			diffs = append(diffs, fmt.Sprintf("other cause %s: %s; was %s (%s)", c.Name, g.Cause, k.Cause, g.Detail))
		}
	}
	sort.Strings(diffs)
	t.Logf("%d cases run, %d pass, %d fail", len(run), len(run)-len(got), len(got))
	logCounts(t, got)
	if *update {
		merged := known
		for _, c := range run { // the cases this run saw replace what was known of them
			if strings.HasPrefix(merged[c.Name].Cause, flakyCause) {
				continue
			}
			delete(merged, c.Name)
			if f, ok := got[c.Name]; ok {
				merged[c.Name] = f
			}
		}
		total, inCorpus := 0, map[string]bool{}
		for _, c := range cases {
			if truth.Cases[c.Name].IsCase() {
				total++
				inCorpus[c.Name] = true
			}
		}
		for name := range merged { // cases gone from the corpus
			if !inCorpus[name] {
				delete(merged, name)
			}
		}
		header := fmt.Sprintf("# Failing cases of the %s corpus (%s) through %s, %s.\n"+
			"# %d cases; %d fail. Regenerate: scripts/conformance update -gotestdir.corpus %s -gotestdir.target %s. NAME<TAB>CAUSE<TAB>DETAIL\n",
			corp.Name, corp.Title, what, runtime.Version(), total, len(merged), corp.Name, *target)
		if err := SaveFailures(file, header, merged); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Logf("if the change is intended, record it: scripts/conformance update -gotestdir.corpus %s -gotestdir.target %s", corp.Name, *target)
	}
}

// loadNames reads a -gotestdir.list file: nil for no file.
func loadNames(file string) (map[string]bool, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if name, _, _ := strings.Cut(strings.TrimSpace(line), "\t"); name != "" {
			names[name] = true
		}
	}
	return names, nil
}

func logCounts(t *testing.T, fs map[string]Failure) {
	counts := Counts(fs)
	causes := make([]string, 0, len(counts))
	for c := range counts {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool { return counts[causes[i]] > counts[causes[j]] })
	for _, c := range causes {
		t.Logf("  %4d %s", counts[c], c)
	}
}
