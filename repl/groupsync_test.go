package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A sync round covers every journal appended to, by fsync when few and by
// one syncfs when many, also one released meanwhile; Sync leaves nothing
// unsynced; cells stay readable.
func TestGroupSyncRounds(t *testing.T) {
	for _, n := range []int{1, syncfsFrom, 3 * syncfsFrom} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			batch := map[*Journal]bool{}
			var js []*Journal
			for i := range n {
				dir := filepath.Join(t.TempDir(), "s")
				if err := os.MkdirAll(filepath.Join(dir, journalDir), 0o700); err != nil {
					t.Fatal(err)
				}
				j := OpenJournal(dir, true)
				if err := j.Append(fmt.Sprintf("x%d := %d", i, i)); err != nil {
					t.Fatal(err)
				}
				batch[j] = true
				js = append(js, j)
			}
			js[0].Release() // its segment is closed before the round
			syncRound(batch)
			for i, j := range js {
				if j.unsynced.Load() {
					t.Errorf("journal %d unsynced after the round", i)
				}
				cells, err := j.Cells()
				if err != nil || len(cells) != 1 || cells[0] != fmt.Sprintf("x%d := %d", i, i) {
					t.Errorf("journal %d: cells %q, %v", i, cells, err)
				}
				j.Close()
			}
		})
	}
}

// Appends and Syncs of one journal beside the host's rounds: each Sync
// returns with every cell appended before it synced (run with -race).
func TestGroupSyncBesideAppends(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := os.MkdirAll(filepath.Join(dir, journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	j := OpenJournal(dir, true)
	defer j.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 20 {
				if err := j.Append(fmt.Sprintf("c%d_%d := 0", w, i)); err != nil {
					t.Error(err)
					return
				}
				if i%5 == 0 {
					j.Sync()
				}
			}
		})
	}
	wg.Wait()
	j.Sync()
	if j.unsynced.Load() {
		t.Error("unsynced after Sync")
	}
	if got := j.Len(); got != 80 {
		t.Errorf("Len = %d; want 80", got)
	}
}
