package repl

import (
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// When a cell fails on replay with an evaluation error (it no longer
// compiles, say, against a re-uploaded package), the journal is cut there
// so that it says what the restored session has. The cells cut off are
// kept aside in classes/repl/cut-<time>.seg (a segment like the journal),
// listed by :journal and put back by :journal restore; never deleted by the
// host.

const cutPrefix = "cut-"

// Cut is a set of cells cut off the journal.
type Cut struct {
	Name  string // file name in classes/repl/
	Cells []string
}

// CutFrom moves the cells from index i (0-based) on into a new cut file and
// returns its name. The cut file is written (and fsynced) before the
// journal is shortened: a crash in between leaves the cells twice, never
// lost.
func (j *Journal) CutFrom(i int, at time.Time) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	cells, err := j.cellsLocked()
	if err != nil {
		return "", err
	}
	if i < 0 || i >= len(cells) {
		return "", fmt.Errorf("journal: no cell %d to cut at", i+1)
	}
	name, err := j.writeCutLocked(cells[i:], at)
	if err != nil {
		return "", err
	}
	return name, j.replaceLocked(cells[:i])
}

func (j *Journal) writeCutLocked(cells []string, at time.Time) (string, error) {
	b := []byte(segmentMagic)
	for _, c := range cells {
		b = appendRecord(b, c)
	}
	base := cutPrefix + at.UTC().Format("20060102T150405.000000000Z")
	name := base + ".seg"
	for k := 2; ; k++ {
		if _, err := j.dir.Lstat(name); errors.Is(err, os.ErrNotExist) {
			break
		}
		name = fmt.Sprintf("%s-%d.seg", base, k)
	}
	if err := writeRootAtomic(j.dir, name, b, syncAll); err != nil {
		return "", fmt.Errorf("journal: keep cut cells: %w", err)
	}
	return name, nil
}

// Cuts lists the cut files, oldest first, with their cells. A cut file
// that cannot be read is listed with no cells and its error.
func (j *Journal) Cuts() ([]Cut, []error, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.openLocked(); err != nil {
		return nil, nil, err
	}
	names, err := j.cutNamesLocked()
	if err != nil {
		return nil, nil, err
	}
	var cuts []Cut
	var errs []error
	for _, n := range names {
		c, err := j.readCutLocked(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cuts = append(cuts, c)
	}
	return cuts, errs, nil
}

func (j *Journal) cutNamesLocked() ([]string, error) {
	d, err := j.dir.Open(".")
	if err != nil {
		return nil, err
	}
	all, err := d.Readdirnames(maxDirEntries + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var names []string
	for _, n := range all {
		if strings.HasPrefix(n, cutPrefix) && strings.HasSuffix(n, ".seg") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func (j *Journal) readCutLocked(name string) (Cut, error) {
	f, fi, err := safefs.Open(j.dir, name, os.O_RDONLY, MaxJournal)
	if err != nil {
		return Cut{}, err
	}
	defer f.Close()
	cells, _, err := readSegment(f, fi.Size())
	if err != nil {
		return Cut{}, fmt.Errorf("%s: %w", name, err)
	}
	return Cut{Name: name, Cells: cells}, nil
}

// RestoreCut appends the cells of cut file name (the newest if empty) to
// the journal and then removes the cut file: its cells live on in the
// journal. It returns the cut put back.
func (j *Journal) RestoreCut(name string) (Cut, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.openLocked(); err != nil {
		return Cut{}, err
	}
	names, err := j.cutNamesLocked()
	if err != nil {
		return Cut{}, err
	}
	if len(names) == 0 {
		return Cut{}, errors.New("no cut cells to restore")
	}
	if name == "" {
		name = names[len(names)-1]
	} else if !contains(names, name) {
		return Cut{}, fmt.Errorf("no cut file %s (:journal lists them)", name)
	}
	c, err := j.readCutLocked(name)
	if err != nil {
		return Cut{}, err
	}
	cells, err := j.cellsLocked()
	if err != nil {
		return Cut{}, err
	}
	if err := j.replaceLocked(append(cells, c.Cells...)); err != nil {
		return Cut{}, err
	}
	if err := j.dir.Remove(name); err != nil {
		return c, fmt.Errorf("journal: cells restored, but %s stays: %w", name, err)
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
