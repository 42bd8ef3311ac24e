package repl

import (
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// Journal is the ordered list of a session's successful cells: what a
// restore replays. It is one append-only segment file, classes/repl/
// journal.seg (the format is in segment.go): a cell costs one write() on the
// prompt's path, done before the prompt returns, so a killed host (the page
// cache outlives it) loses nothing acknowledged; the fsync for a power loss
// is batched in the background. A torn tail (a power loss mid-write) fails
// its checksum and is dropped, never misread.
//
// Every access goes through an os.Root of the session directory: a
// classes/repl or journal.seg that the session's code replaced by a symlink
// is refused, never followed, so the host never reads or writes another
// session's (or the host's) files through it.
//
// Opening a journal does no I/O: a host with many sessions on disk starts
// in a time that does not depend on their journals. The segment is opened on
// first use, and journals of the old format (one file per cell, 000001.go,
// ...) are converted then.
type Journal struct {
	sessDir string // ROOT/<uuid>
	sync    bool   // fsync appended cells (in the background)

	mu     sync.Mutex // guards the fields below and the segment's contents
	dir    *os.Root   // classes/repl; nil until opened
	seg    *os.File   // journal.seg, open for appending
	size   int64      // bytes of seg that hold whole records
	count  int        // records in seg
	closed bool       // Close was called: the session is gone

	current atomic.Pointer[os.File] // seg, for the host's sync rounds (which never take mu)
	dev     atomic.Uint64           // the device holding seg (groupsync.go)

	syncMu   sync.Mutex  // held across an fsync of seg, so that Sync waits for one begun
	unsynced atomic.Bool // appended since the last fsync began
}

const (
	journalDir  = "classes/repl"
	segmentName = "journal.seg"
	// MaxJournal bounds a journal's segment: what a restore reads at most.
	MaxJournal = 64 << 20
)

// ErrJournalClosed is the journal of a session that has ended: a cell that
// ran while its session was killed is not saved.
var ErrJournalClosed = errors.New("journal: session ended")

// ErrJournalFull refuses a cell past MaxJournal.
var ErrJournalFull = errors.New("journal full: " + safefs.Size(MaxJournal) + "; :reset starts an empty one")

// OpenJournal returns the journal of the session directory sessDir; with
// sync, appended cells are fsynced soon after Append returns. It does no
// I/O.
func OpenJournal(sessDir string, sync bool) *Journal {
	return &Journal{sessDir: sessDir, sync: sync}
}

// Append records a cell that ran successfully: one write, before it
// returns.
func (j *Journal) Append(cell string) error {
	if len(cell) > MaxCell {
		return fmt.Errorf("journal: cell of %s, larger than %s", safefs.Size(int64(len(cell))), safefs.Size(MaxCell))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.openLocked(); err != nil {
		return err
	}
	rec := appendRecord(nil, cell)
	if j.size+int64(len(rec)) > MaxJournal {
		return ErrJournalFull
	}
	n, err := j.seg.WriteAt(rec, j.size)
	if err != nil {
		// A short write leaves a torn record that the next read drops;
		// size stays before it, so the next append writes over it.
		return fmt.Errorf("journal: %w", err)
	}
	j.size += int64(n)
	j.count++
	if j.sync {
		j.syncLater()
	}
	return nil
}

// openLocked opens classes/repl and the segment on first use, converting a
// journal of the old format, and reads the segment's length (dropping a
// torn tail). Called with mu held.
func (j *Journal) openLocked() error {
	if j.seg != nil {
		return nil
	}
	if j.closed {
		return ErrJournalClosed
	}
	root, err := os.OpenRoot(j.sessDir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer root.Close()
	dir, err := openSubdir(root, journalDir)
	if errors.Is(err, os.ErrNotExist) {
		if err = root.MkdirAll(journalDir, 0o700); err == nil {
			dir, err = openSubdir(root, journalDir)
		}
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.prepare(dir); err != nil {
		dir.Close()
		return fmt.Errorf("journal: %w", err)
	}
	seg, fi, err := safefs.Open(dir, segmentName, os.O_RDWR, MaxJournal)
	if err != nil {
		dir.Close()
		return fmt.Errorf("journal: %w", err)
	}
	size := fi.Size()
	cells, valid, err := readSegment(seg, size)
	if err != nil {
		seg.Close()
		dir.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if valid < size {
		// A torn tail: cut it off, so appends follow the last whole record.
		if err := seg.Truncate(valid); err != nil {
			seg.Close()
			dir.Close()
			return fmt.Errorf("journal: drop torn tail: %w", err)
		}
	}
	j.dir, j.seg, j.size, j.count = dir, seg, valid, len(cells)
	j.dev.Store(fileDev(fi))
	j.current.Store(seg)
	return nil
}

// prepare removes what a crash left half written in dir and makes sure a
// segment exists: a new empty one, or one converted from the old format.
func (j *Journal) prepare(dir *os.Root) error {
	if err := removeRootTemps(dir, "."); err != nil {
		return err
	}
	old, err := oldCellNames(dir)
	if err != nil {
		return err
	}
	if _, err := dir.Lstat(segmentName); err == nil {
		// Converted before; old files left are those a crash kept from
		// being removed.
		return removeOldCells(dir, old)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var cells []string
	for _, n := range old {
		b, err := safefs.Read(dir, n, MaxCell)
		if err != nil {
			return fmt.Errorf("convert old journal: %w", err)
		}
		cells = append(cells, string(b))
	}
	if err := j.writeSegment(dir, cells); err != nil {
		return err
	}
	return removeOldCells(dir, old)
}

// writeSegment replaces the segment with one of cells, atomically; the
// caller reopens it.
func (j *Journal) writeSegment(dir *os.Root, cells []string) error {
	b := []byte(segmentMagic)
	for _, c := range cells {
		b = appendRecord(b, c)
	}
	if len(b) > MaxJournal {
		return ErrJournalFull
	}
	level := syncNone
	if j.sync {
		level = syncAll
	}
	return writeRootAtomic(dir, segmentName, b, level)
}

// Cells returns the journal's cells in order.
func (j *Journal) Cells() ([]string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cellsLocked()
}

func (j *Journal) cellsLocked() ([]string, error) {
	if err := j.openLocked(); err != nil {
		return nil, err
	}
	cells, _, err := readSegment(io.NewSectionReader(j.seg, 0, j.size), j.size)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return cells, nil
}

// Len is the number of cells in the journal (0 if it cannot be read).
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.openLocked() != nil {
		return 0
	}
	return j.count
}

// Clear empties the journal (:reset).
func (j *Journal) Clear() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.replaceLocked(nil)
}

// Drop takes cell i (0-based) out of the journal and returns it.
func (j *Journal) Drop(i int) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	cells, err := j.cellsLocked()
	if err != nil {
		return "", err
	}
	if i < 0 || i >= len(cells) {
		return "", fmt.Errorf("no cell %d: the journal has %s", i+1, plural(len(cells), "cell"))
	}
	dropped := cells[i]
	rest := append(cells[:i:i], cells[i+1:]...)
	return dropped, j.replaceLocked(rest)
}

// replaceLocked makes cells the whole journal. Called with mu held.
func (j *Journal) replaceLocked(cells []string) error {
	if err := j.openLocked(); err != nil {
		return err
	}
	j.Sync() // no background fsync of the old segment left running
	if err := j.writeSegment(j.dir, cells); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return j.reopenLocked()
}

// reopenLocked opens the segment again after it was replaced.
func (j *Journal) reopenLocked() error {
	j.seg.Close()
	j.seg = nil
	dir := j.dir
	j.dir = nil
	defer dir.Close()
	return j.openLocked()
}

// Close releases the journal's files for good: the session has ended;
// later use fails.
func (j *Journal) Close() {
	j.release(true)
}

// Release releases the journal's files (the host stops, or the session is
// unloaded); the next use opens them again.
func (j *Journal) Release() {
	j.release(false)
}

func (j *Journal) release(final bool) {
	j.Sync()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = j.closed || final
	if j.seg != nil {
		j.current.Store(nil)
		j.seg.Close()
		j.dir.Close()
		j.seg, j.dir = nil, nil
	}
}

// syncLater has the segment fsynced in the host's next sync round
// (groupsync.go).
func (j *Journal) syncLater() {
	j.unsynced.Store(true)
	journalSync.mark(j)
}

// syncNow fsyncs the segment if a cell was appended since the last fsync
// began.
func (j *Journal) syncNow() {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.unsynced.Swap(false) {
		if seg := j.current.Load(); seg != nil {
			seg.Sync()
		}
	}
}

// Sync waits until every appended cell is on disk: it fsyncs the segment
// itself rather than wait for a sync round.
func (j *Journal) Sync() {
	j.syncNow()
}

// oldCellNames lists the cell files of the old format in order.
func oldCellNames(dir *os.Root) ([]string, error) {
	d, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(maxDirEntries + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(names) > maxDirEntries {
		return nil, fmt.Errorf("%s: more than %d entries", journalDir, maxDirEntries)
	}
	return sortOldCells(names), nil
}

func removeOldCells(dir *os.Root, names []string) error {
	for _, n := range names {
		if err := dir.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(names) > 0 {
		return syncRootDir(dir, ".")
	}
	return nil
}
