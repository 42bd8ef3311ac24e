package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Journal is the ordered list of a session's successful cells, one file per
// cell in classes/repl/ (000001.go, 000002.go, ...): what a restore replays.
// A cell's file appears whole (temporary file, then rename) or not at all.
//
// Opening a journal reads nothing: a host with many sessions on disk starts
// in a time that does not depend on their journals' sizes. The directory is
// read on first use.
type Journal struct {
	dir  string
	sync bool // fsync each cell

	mu   sync.Mutex // guards next and the directory's contents
	next int        // number of the next cell; 0: not read from disk yet

	flushMu  sync.Mutex // guards unsynced and flushing
	unsynced []string   // cell files written but not yet fsynced
	flushing bool       // a flush goroutine is running
	flushed  sync.Cond  // signalled when a flush round ends (on flushMu)
}

// OpenJournal returns the journal kept in dir; with sync, every cell (file
// and directory entry) is fsynced soon after Append returns (see Append).
// It does no I/O.
func OpenJournal(dir string, sync bool) *Journal {
	j := &Journal{dir: dir, sync: sync}
	j.flushed.L = &j.flushMu
	return j
}

// Append records a cell that ran successfully. Without sync, the cell
// survives a killed host (the page cache outlives the process) but not a
// power loss.
func (j *Journal) Append(cell string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.next == 0 {
		if err := os.MkdirAll(j.dir, 0o700); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if _, err := j.namesLocked(); err != nil {
			return err
		}
	}
	name := filepath.Join(j.dir, fmt.Sprintf("%06d.go", j.next))
	// Written whole through a temporary file and a rename, so a killed host
	// (the page cache outlives it) loses nothing; the fsync for a power
	// loss follows in the background, off the prompt's path: at ~2 ms it
	// would double the round trip of a cell like 1+2.
	if err := writeFileAtomic(name, []byte(cell), syncNone); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.next++
	if j.sync {
		j.syncLater(name)
	}
	return nil
}

// syncLater fsyncs name, and then the directory, in a goroutine that lives
// while there are cells to sync.
func (j *Journal) syncLater(name string) {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	j.unsynced = append(j.unsynced, name)
	if !j.flushing {
		j.flushing = true
		go j.flush()
	}
}

func (j *Journal) flush() {
	j.flushMu.Lock()
	for len(j.unsynced) > 0 {
		names := j.unsynced
		j.unsynced = nil
		j.flushMu.Unlock()
		for _, n := range names {
			if f, err := os.Open(n); err == nil {
				f.Sync()
				f.Close()
			}
		}
		syncDir(j.dir) // a removed session's directory fails harmlessly
		j.flushMu.Lock()
	}
	j.flushing = false
	j.flushed.Broadcast()
	j.flushMu.Unlock()
}

// Sync waits until every appended cell is on disk.
func (j *Journal) Sync() {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	for j.flushing {
		j.flushed.Wait()
	}
}

// Cells returns the journal's cells in order. Temporary files a crash left
// (a cell whose write never finished) are removed, never read.
func (j *Journal) Cells() ([]string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := removeTemps(j.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("journal: %w", err)
	}
	names, err := j.namesLocked()
	if err != nil {
		return nil, err
	}
	cells := make([]string, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(j.dir, n))
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		cells = append(cells, string(b))
	}
	return cells, nil
}

// Len is the number of cells in the journal.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	names, _ := j.namesLocked()
	return len(names)
}

// Clear removes every cell (:reset).
func (j *Journal) Clear() error {
	return j.TruncateFrom(0)
}

// TruncateFrom removes the cells from index i (0-based) on, after a replay
// that failed there, so the journal says what the live session has. The last
// cell goes first: a crash halfway leaves a shorter prefix, never a gap.
func (j *Journal) TruncateFrom(i int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	names, err := j.namesLocked()
	if err != nil {
		return err
	}
	for k := len(names) - 1; k >= i && k >= 0; k-- {
		if err := os.Remove(filepath.Join(j.dir, names[k])); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	j.next = 1
	if i > 0 && i <= len(names) {
		j.next = cellNumber(names[i-1]) + 1
	}
	return nil
}

// namesLocked lists the cell files in order and sets next after the last.
// A missing directory is an empty journal.
func (j *Journal) namesLocked() ([]string, error) {
	entries, err := os.ReadDir(j.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && cellNumber(n) > 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(a, b int) bool { return cellNumber(names[a]) < cellNumber(names[b]) })
	j.next = 1
	if n := len(names); n > 0 {
		j.next = cellNumber(names[n-1]) + 1
	}
	return names, nil
}

// cellNumber is the number of a cell file "000042.go", or 0 for any other
// name.
func cellNumber(name string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".go"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
