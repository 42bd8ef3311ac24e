// Package artifacts is the per-session artifact store ROOT/<uuid>/{classes,files,archives}:
// validated names, atomic verified writes, archive unpacking with guards,
// listing and removal, all through an os.Root of the session directory.
package artifacts

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
)

// Limits caps what one upload may cost. A zero field means the field of
// DefaultLimits.
type Limits struct {
	MaxFileBytes     int64 // largest upload, archives included
	MaxUnpackedBytes int64 // bytes one archive may unpack to
	MaxEntries       int   // entries (files, folders, links) in one archive
	// MaxHashBytes is how many bytes one listing may read to hash files
	// the store did not write; a file that does not fit is listed with
	// NotHashed, and a later listing hashes it if it fits then.
	MaxHashBytes int64
}

// DefaultLimits are the limits a zero Limits stands for.
var DefaultLimits = Limits{
	MaxFileBytes:     1 << 30,
	MaxUnpackedBytes: 1 << 30,
	MaxEntries:       10_000,
	MaxHashBytes:     256 << 20,
}

func (l Limits) orDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultLimits.MaxFileBytes
	}
	if l.MaxUnpackedBytes <= 0 {
		l.MaxUnpackedBytes = DefaultLimits.MaxUnpackedBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	if l.MaxHashBytes <= 0 {
		l.MaxHashBytes = DefaultLimits.MaxHashBytes
	}
	return l
}

// Folders of the session directory the store owns. tmpDir and metaDir are
// private: never listed, never reachable through a Name.
const (
	tmpDir  = ".tmp"  // uploads and unpackings in progress; emptied by Open
	metaDir = ".meta" // one file per archive (the folder it was unpacked into), and sums.log
)

// maxRecord bounds an archive's record in .meta: a name of the layout.
const maxRecord = maxNameLen + 64

// Info describes one stored artifact.
type Info struct {
	Name     string // slash path from the session directory, e.g. "files/data.txt"
	Size     int64
	SHA256   string // lower-case hex, or NotHashed
	Unpacked string // archives only: the folder it is unpacked into, e.g. "files/set.tar.gz"
}

// Store is the artifact store of one session directory. It is safe for
// concurrent use. It must be the only Store of its directory: Open clears
// the uploads in progress of any other.
type Store struct {
	dir  string
	root *os.Root
	lim  Limits

	quota quota
	owner owner

	// OnChange is told of each artifact added (with its size and sha256)
	// and removed (its name only), after the change; nil: nobody. Set it
	// before the store is used.
	OnChange func(added bool, info Info)

	// mu serialises the commit and removal of artifacts (the check whether a
	// name exists and the renames that follow) and guards sums and logLines.
	mu       sync.Mutex
	sums     map[string]sum // by slash path from the session directory
	logLines int            // lines in .meta/sums.log

	hashedBytes atomic.Int64 // see HashedBytes
	reserved    atomic.Int64 // bytes of uploads in progress, for the quota
}

// Open opens the store of sessionDir, which must exist, creating the
// folders of the layout, removing uploads left over by a crash and undoing
// half-committed archives.
func Open(sessionDir string, lim Limits, opts ...Option) (*Store, error) {
	root, err := os.OpenRoot(sessionDir)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: sessionDir, root: root, lim: lim.orDefaults(), sums: map[string]sum{}}
	for _, o := range opts {
		o(s)
	}
	if err := s.init(); err != nil {
		root.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) init() error {
	for _, d := range []string{"classes/src", "classes/repl", "files", "archives", metaDir} {
		if err := s.root.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := s.realDirs(d, d); err != nil {
			return err
		}
	}
	if err := s.chown("files"); err != nil {
		return err
	}
	if err := s.root.RemoveAll(tmpDir); err != nil {
		return err
	}
	if err := s.root.Mkdir(tmpDir, 0o700); err != nil {
		return err
	}
	// An archive is committed by renaming it into archives/ last; a record
	// in .meta without its archive is a commit cut short: undo it.
	metas, err := fs.ReadDir(s.root.FS(), metaDir)
	if err != nil {
		return err
	}
	for _, m := range metas {
		if formatOf(m.Name()) == formatNone {
			continue // sums.log
		}
		if _, err := s.root.Lstat("archives/" + m.Name()); err == nil {
			continue
		}
		if unpack, err := s.unpackDirOf(m.Name()); err == nil {
			if err := s.root.RemoveAll(unpack); err != nil {
				return err
			}
		}
		if err := s.root.Remove(metaDir + "/" + m.Name()); err != nil {
			return err
		}
	}
	return s.loadSums()
}

// Close releases the session directory. Uploads in progress fail.
func (s *Store) Close() error { return s.root.Close() }

// Dir is the session directory the store was opened on.
func (s *Store) Dir() string { return s.dir }

// Limits are the store's limits, defaults filled in.
func (s *Store) Limits() Limits { return s.lim }

// tempName returns a fresh name in the private temp folder.
func tempName(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return tmpDir + "/" + prefix + hex.EncodeToString(b[:])
}

// unpackDirOf reads which folder archive file was unpacked into. The
// record is read as hostile: a small regular file holding a name of the
// layout, or an error that names it.
func (s *Store) unpackDirOf(file string) (string, error) {
	b, err := safefs.Read(s.root, metaDir+"/"+file, maxRecord)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("bad archive record: %w", err)
	}
	d := string(b)
	if n, err := ParseName("archives/" + file + "#" + strings.TrimPrefix(d, "files/")); err != nil || n.Unpack != d {
		return "", errors.New("bad archive record: " + metaDir + "/" + file + " names no folder of files/")
	}
	return d, nil
}

// unpackDirs is the set of folders in files/ that hold unpacked archives.
// A record that cannot be read is an error naming its archive.
func (s *Store) unpackDirs() (map[string]string, error) {
	metas, err := fs.ReadDir(s.root.FS(), metaDir)
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for _, m := range metas {
		if formatOf(m.Name()) == formatNone {
			continue // sums.log
		}
		d, err := s.unpackDirOf(m.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since ReadDir
		}
		if err != nil {
			return nil, &Error{Name: "archives/" + m.Name(), Msg: err.Error(), Err: ErrBadArchive}
		}
		dirs[d] = "archives/" + m.Name()
	}
	return dirs, nil
}

// mkParents creates the folders above p (a path inside a kind's folder),
// one by one, refusing to go through anything but a real folder, so that p
// lands inside its kind's folder even if session code planted links there.
func (s *Store) mkParents(name, p string) error {
	return s.walkDirs(name, path.Dir(p), true)
}

// realDirs checks that every element of dir is a folder, not a symlink.
func (s *Store) realDirs(name, dir string) error {
	return s.walkDirs(name, dir, false)
}

func (s *Store) walkDirs(name, dir string, create bool) error {
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		fi, err := s.root.Lstat(dir[:i])
		if create && errors.Is(err, fs.ErrNotExist) {
			err = s.root.Mkdir(dir[:i], 0o755)
			if err == nil && strings.HasPrefix(dir[:i], "files/") {
				err = s.chown(dir[:i])
			}
			if err == nil || errors.Is(err, fs.ErrExist) { // made, or made by a racing Mkdir
				fi, err = s.root.Lstat(dir[:i])
			}
		}
		if err != nil {
			return ioErr(name, err)
		}
		if !fi.IsDir() {
			if fi.Mode().IsRegular() {
				return errf(name, ErrExists, "already exists: %s is a file", dir[:i])
			}
			return errf(name, ErrBadName, "%s is not a folder", dir[:i])
		}
	}
	return nil
}

// syncDir makes a rename into dir durable.
func (s *Store) syncDir(dir string) error {
	d, err := s.root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove removes an artifact: a file or a folder below classes/src/ or
// files/, or an archive together with the folder it was unpacked into.
func (s *Store) Remove(name string) error {
	err := s.remove(name)
	if err == nil && s.OnChange != nil {
		s.OnChange(false, Info{Name: name})
	}
	return err
}

func (s *Store) remove(name string) error {
	n, err := ParseName(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.realDirs(name, path.Dir(n.Path)); err != nil {
		return err
	}
	if _, err := s.root.Lstat(n.Path); err != nil {
		return ioErr(name, err)
	}
	if n.Kind != Archive {
		dirs, err := s.unpackDirs()
		if err != nil {
			return ioErr(name, err)
		}
		if a, ok := dirs[n.Path]; ok {
			return errf(name, ErrBadName, "is where %s is unpacked; remove the archive", a)
		}
		if err := s.root.RemoveAll(n.Path); err != nil {
			return ioErr(name, err)
		}
		s.forget(n.Path)
		return nil
	}
	if err := s.realDirs(name, "files"); err != nil {
		return err
	}
	file := n.Rel()
	unpack, err := s.unpackDirOf(file)
	if err != nil {
		unpack = "files/" + file
	}
	// The archive goes first: if we crash before the rest, Open finishes.
	if err := s.root.Remove(n.Path); err != nil {
		return ioErr(name, err)
	}
	s.forget(n.Path)
	if err := s.root.RemoveAll(unpack); err != nil {
		return ioErr(name, err)
	}
	if err := s.root.Remove(metaDir + "/" + file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ioErr(name, err)
	}
	return nil
}
