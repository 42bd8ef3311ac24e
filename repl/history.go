package repl

import (
	"bytes"
	"io"
	"os"
)

// History bounds: readline loads the whole file as runes at every login
// and trims it only by entry count, so the host bounds it in bytes.
const (
	maxHistoryEntry = 16 << 10 // a longer cell is run but not kept
	maxHistoryFile  = 1 << 20  // the newest entries that fit are kept
)

// saveHistory keeps cell in the user's history unless it is too long to.
func (it *interaction) saveHistory(cell string) {
	if e := encodeHistory(cell); len(e) <= maxHistoryEntry {
		it.rl.SaveHistory(e)
	}
}

// saveDueHistory keeps the last cell in the history, if not done yet. A
// cell goes into the history file after its result and the next prompt
// are sent, not before it runs: the write (one write(2) of the file)
// then overlaps the client's reading of the prompt instead of delaying
// every round trip.
func (it *interaction) saveDueHistory() {
	if it.hasHistoryDue {
		it.saveHistory(it.historyDue)
		it.historyDue, it.hasHistoryDue = "", false
	}
}

// trimHistory rewrites the history file at path to its newest entries that
// fit in maxHistoryFile, dropping any over maxHistoryEntry, before
// readline reads it. Only the file's last maxHistoryFile bytes are read.
func trimHistory(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return os.Remove(path)
	}
	if st.Size() <= maxHistoryFile {
		return nil
	}
	if _, err := f.Seek(st.Size()-maxHistoryFile, io.SeekStart); err != nil {
		return err
	}
	tail, err := io.ReadAll(io.LimitReader(f, maxHistoryFile))
	if err != nil {
		return err
	}
	lines := bytes.Split(tail, []byte("\n"))
	lines = lines[1:] // the first may be the end of an entry cut by the seek
	var kept bytes.Buffer
	for _, l := range lines {
		if len(l) > 0 && len(l) <= maxHistoryEntry {
			kept.Write(l)
			kept.WriteByte('\n')
		}
	}
	return writeFileAtomic(path, kept.Bytes(), syncNone)
}
