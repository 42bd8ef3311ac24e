package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// On-disk changes a crash leaves whole or not at all: a file is written to
// a temporary name and renamed; a session directory is built under a
// temporary name and renamed into place; a removed one is first renamed out
// of the way. Whatever a crash leaves under a temporary name is removed on
// the next start (removeTemps, cleanRoot), and never read as state.
const (
	tempPrefix  = ".tmp-"   // a file being written (session.json, a journal cell)
	newPrefix   = ".new-"   // a session directory being created
	trashPrefix = ".trash-" // a session directory being removed
)

// syncLevel is what a write survives beyond a killed host (which every
// write survives: the page cache outlives the process).
type syncLevel int

const (
	syncNone syncLevel = iota // no fsync: a power loss may lose the write (never half of it on ext4)
	syncFile                  // the file fsynced before its rename: a power loss leaves the old file or the new one, whole
	syncAll                   // the directory fsynced too: the new file survives a power loss
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory, renamed over path, so a crash leaves the old file or the new
// one, never half of one; level says how durable the write is on return.
func writeFileAtomic(path string, data []byte, level syncLevel) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if level >= syncFile {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if level >= syncAll {
		return syncDir(dir)
	}
	return nil
}

// syncDir makes the entries of dir (a rename into it) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// sessionSubdirs is the layout of a new session directory.
var sessionSubdirs = []string{"classes/repl", "classes/src", "files", "archives"}

// createSessionDir makes root/<md.ID> with its layout and session.json. It
// is built as root/.new-<id> and renamed into place, so the session exists
// whole or not at all; with sync, it survives a power loss on return.
func createSessionDir(root string, md meta, key []byte, sync bool) error {
	tmp := filepath.Join(root, newPrefix+md.ID)
	for _, sub := range sessionSubdirs {
		if err := os.MkdirAll(filepath.Join(tmp, sub), 0o700); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("create session directory: %w", err)
		}
	}
	level := syncNone
	if sync {
		level = syncFile // the root's fsync below makes the whole directory durable
	}
	if err := writeMeta(tmp, md, key, level); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("write session.json: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(root, md.ID)); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("create session directory: %w", err)
	}
	if sync {
		return syncDir(root)
	}
	return nil
}

// removeSessionDir removes root/<id>. The directory is first renamed to
// root/.trash-<id>, so a crash halfway leaves no half session that a restart
// would bring back; the next start finishes the removal.
func removeSessionDir(root, id string, sync bool) error {
	trash := filepath.Join(root, trashPrefix+id)
	if err := os.Rename(filepath.Join(root, id), trash); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if sync {
		if err := syncDir(root); err != nil {
			return err
		}
	}
	return os.RemoveAll(trash)
}
