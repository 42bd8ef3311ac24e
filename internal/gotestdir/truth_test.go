package gotestdir

import (
	"context"
	"flag"
	"os"
	"sync"
	"testing"
	"time"
)

var regen = flag.Bool("gotestdir.truth", false, "compute the truth of every case whose source changed (slow) and rewrite testdata/truth-GOVERSION.json")

// TestTruth checks that the committed truth covers every selected case of
// the corpus (-gotestdir.corpus) with its current source; with
// -gotestdir.truth it computes what is missing first.
func TestTruth(t *testing.T) { forEachCorpus(t, checkTruth) }

func checkTruth(t *testing.T, corp Corpus, dir string) {
	cases, err := corp.Select(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := corp.TruthFile()
	truth, err := LoadTruth(path)
	if err != nil {
		t.Fatal(err)
	}
	if *regen {
		if err := os.MkdirAll(corp.Testdir, 0o755); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		done := 0
		for _, c := range cases {
			if !truth.Stale(c) {
				continue
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				w := Compute(context.Background(), c, 2*time.Minute)
				mu.Lock()
				defer mu.Unlock()
				truth.Cases[c.Name] = w
				if done++; done%50 == 0 {
					if err := truth.Save(path); err != nil {
						t.Error(err)
					}
					t.Logf("%d computed", done)
				}
			})
		}
		wg.Wait()
		for name := range truth.Cases { // cases gone from the toolchain
			if !containsCase(cases, name) {
				delete(truth.Cases, name)
			}
		}
		if err := truth.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		if truth.Stale(c) {
			t.Errorf("%s: no truth for its current source; run scripts/conformance truth -gotestdir.corpus %s", c.Name, corp.Name)
		}
	}
}

func containsCase(cases []Case, name string) bool {
	for _, c := range cases {
		if c.Name == name {
			return true
		}
	}
	return false
}
