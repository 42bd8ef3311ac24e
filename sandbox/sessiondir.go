package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The parts of a session directory and what its worker may do there
// (Landlock, and file permissions as a second wall when workers run as a
// uid of their own). Everything else in the directory (session.json, the
// journal classes/repl/, the store's metadata) is the host's: the worker
// can neither read, write, rename nor create anything beside it.
var (
	writableDirs = []string{"files", "tmp"}                              // the worker's own, read and write
	readableDirs = []string{filepath.Join("classes", "src"), "archives"} // uploads, read only
)

// prepareSession makes the session's directories before its worker
// confines itself (Landlock can only grant what exists) and, when the
// worker runs as ids, sets their owners and modes: the session directory,
// classes/ and the read-only trees root-owned and open to the session's
// gid only, files/ and tmp/ the session's. A files/ or tmp/ whose owner is
// not ids (workers ran as the host's user before, or the range changed)
// is re-owned whole. All through an os.Root of the session directory,
// links never followed: a session directory left by a worker that could
// write it (an older host) may hold a link where a directory should be,
// which is refused.
func prepareSession(dir string, ids *IDs) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("session directory: %w", err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("session directory: %w", err)
	}
	defer r.Close()
	for _, d := range append(append([]string{"classes"}, writableDirs...), readableDirs...) {
		if err := r.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
		if fi, err := r.Lstat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("session directory: %s is not a directory", d)
		}
	}
	if ids == nil {
		return nil
	}
	// Root-owned, group the session's: the worker may pass through, and
	// read what is readable, never write.
	for _, d := range []string{".", "classes", readableDirs[0], readableDirs[1]} {
		if err := r.Lchown(d, 0, ids.GID); err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
		if err := r.Chmod(d, 0o750); err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
	}
	// The host's root must be passable for the worker to reach its session.
	if err := addSearch(filepath.Dir(dir)); err != nil {
		return err
	}
	for _, d := range writableDirs {
		if err := ownTree(r, d, *ids); err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
	}
	return nil
}

// addSearch lets others pass through dir (o+x), without listing it.
func addSearch(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o001 != 0 {
		return nil
	}
	return os.Chmod(dir, fi.Mode().Perm()|0o001)
}

// ownTree gives d and, if d was not ids' already, all below it to ids.
func ownTree(session *os.Root, d string, ids IDs) error {
	if fi, err := session.Lstat(d); err == nil && statIDs(fi) == ids {
		return nil
	}
	r, err := session.OpenRoot(d)
	if err != nil {
		return err
	}
	defer r.Close()
	err = fs.WalkDir(r.FS(), ".", func(p string, _ fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := r.Lchown(p, ids.UID, ids.GID); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.Chmod(".", 0o700)
}

func statIDs(fi fs.FileInfo) IDs {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return IDs{-1, -1}
	}
	return IDs{int(st.Uid), int(st.Gid)}
}
