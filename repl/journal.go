package repl

import (
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
// Files appear whole (temporary file, then rename) or not at all.
type Journal struct {
	dir string

	mu   sync.Mutex // guards next
	next int
}

// OpenJournal opens the journal in dir, creating dir if needed.
func OpenJournal(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{dir: dir}
	names, err := j.names()
	if err != nil {
		return nil, err
	}
	j.next = 1
	if n := len(names); n > 0 {
		j.next = cellNumber(names[n-1]) + 1
	}
	return j, nil
}

// Append records a cell that ran successfully. sync asks for an fsync: the
// journal survives a power loss only then (a killed host loses nothing either
// way, the page cache outlives the process).
func (j *Journal) Append(cell string, sync bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	name := filepath.Join(j.dir, fmt.Sprintf("%06d.go", j.next))
	if err := writeFileAtomic(name, []byte(cell), sync); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.next++
	return nil
}

// Cells returns the journal's cells in order.
func (j *Journal) Cells() ([]string, error) {
	names, err := j.names()
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
	names, _ := j.names()
	return len(names)
}

// Clear removes every cell (:reset).
func (j *Journal) Clear() error {
	return j.TruncateFrom(0)
}

// TruncateFrom removes the cells from index i (0-based) on, after a replay
// that failed there, so the journal says what the live session has.
func (j *Journal) TruncateFrom(i int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	names, err := j.names()
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

func (j *Journal) names() ([]string, error) {
	entries, err := os.ReadDir(j.dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && cellNumber(n) > 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(a, b int) bool { return cellNumber(names[a]) < cellNumber(names[b]) })
	return names, nil
}

func cellNumber(name string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".go"))
	if err != nil {
		return 0
	}
	return n
}
