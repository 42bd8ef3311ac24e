package artifacts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The SHA-256 of every file the store wrote is known from the upload
// itself; the sum of a file the session's code wrote is computed once per
// version of the file, within a budget per listing. A version is a fileID:
// any write to a file changes its ctime (a Chtimes too), so a cached sum is
// valid exactly while the fileID stays the same. Linux 6.13+ hands out
// fine-grained timestamps to an inode whose times were just read, so a
// write right after our stat still gets a new ctime.
//
// Sums are kept in memory and appended to .meta/sums.log, so they survive
// a restart of the host; the log is a cache: one that cannot be read is
// dropped and the sums are computed again, lazily.

// NotHashed is what Info.SHA256 holds for a file the store did not write
// and did not hash: larger than what a listing may hash, or changing while
// it was read.
const NotHashed = "-"

const (
	sumsLog     = metaDir + "/sums.log"
	maxSumsLog  = 16 << 20 // bytes of .meta/sums.log read at Open
	compactSlop = 256      // stale lines tolerated in the log before it is rewritten
)

// fileID is one version of a file.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}

// sum is a known SHA-256 of one version of a file.
type sum struct {
	id  fileID
	hex string
}

// loadSums reads .meta/sums.log into s.sums. A log that is not a small
// regular file, or holds a bad line, is dropped.
func (s *Store) loadSums() error {
	b, err := safefs.Read(s.root, sumsLog, maxSumsLog)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	lines := 0
	if err == nil {
		for line := range bytes.Lines(b) {
			p, sm, ok := parseSumLine(string(line))
			if !ok {
				err = fmt.Errorf("bad line %d", lines+1)
				break
			}
			s.sums[p] = sm
			lines++
		}
	}
	if err != nil {
		clear(s.sums)
		s.logLines = 0
		return s.root.RemoveAll(sumsLog)
	}
	s.logLines = lines
	return s.compactSums()
}

// parseSumLine reads "HEX DEV INO SIZE MTIME CTIME QUOTED-PATH\n".
func parseSumLine(line string) (string, sum, bool) {
	f := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 7)
	if len(f) != 7 || len(f[0]) != 2*sha256.Size {
		return "", sum{}, false
	}
	if _, err := hex.DecodeString(f[0]); err != nil {
		return "", sum{}, false
	}
	var n [5]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return "", sum{}, false
		}
		n[i] = v
	}
	p, err := strconv.Unquote(f[6])
	if err != nil {
		return "", sum{}, false
	}
	id := fileID{dev: uint64(n[0]), ino: uint64(n[1]), size: n[2], mtime: n[3], ctime: n[4]}
	return p, sum{id: id, hex: f[0]}, true
}

func sumLine(p string, sm sum) string {
	return fmt.Sprintf("%s %d %d %d %d %d %s\n", sm.hex, int64(sm.id.dev), int64(sm.id.ino),
		sm.id.size, sm.id.mtime, sm.id.ctime, strconv.Quote(p))
}

// compactSums rewrites the log with the live sums once it holds many stale
// lines, dropping sums of files that are gone. Callers hold mu (or are Open).
func (s *Store) compactSums() error {
	if s.logLines <= 2*len(s.sums)+compactSlop {
		return nil
	}
	var buf bytes.Buffer
	for p, sm := range s.sums {
		if _, err := s.root.Lstat(p); err != nil {
			delete(s.sums, p)
			continue
		}
		buf.WriteString(sumLine(p, sm))
	}
	tmp := tempName("sums-")
	if err := s.root.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return err
	}
	if err := s.root.Rename(tmp, sumsLog); err != nil {
		s.root.Remove(tmp)
		return err
	}
	s.logLines = len(s.sums)
	return nil
}

// remember records the sum of the file now at p. Callers hold mu.
func (s *Store) remember(p, hexSum string) {
	fi, err := s.root.Lstat(p)
	if err != nil {
		return
	}
	if id, ok := idOf(fi); ok {
		s.keep(p, sum{id: id, hex: hexSum})
	}
}

// keep caches sm as the sum of p and appends it to the log; the log is a
// cache, so a failure to append only costs a rehash later. Callers hold mu.
func (s *Store) keep(p string, sm sum) {
	s.sums[p] = sm
	if s.logLines >= maxSumsLog/128 { // lines are ~120-300 bytes: keep the log readable
		s.logLines = maxSumsLog // force the rewrite
		if err := s.compactSums(); err != nil {
			return
		}
	}
	if fi, err := s.root.Lstat(sumsLog); err == nil && !fi.Mode().IsRegular() {
		s.root.Remove(sumsLog) // a link or a fifo planted there: never append through it
	}
	f, err := s.root.OpenFile(sumsLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if _, err := io.WriteString(f, sumLine(p, sm)); err == nil {
		s.logLines++
	}
	s.compactSums()
}

// forget drops the cached sums of p and everything below it. Callers hold mu.
func (s *Store) forget(p string) {
	for k := range s.sums {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(s.sums, k)
		}
	}
}

// cachedSum returns the known sum of p, described by fi, if any. Callers hold mu.
func (s *Store) cachedSum(p string, fi fs.FileInfo) (string, bool) {
	id, ok := idOf(fi)
	if c, found := s.sums[p]; ok && found && c.id == id {
		return c.hex, true
	}
	return "", false
}

// hashFile computes the SHA-256 of the regular file p, described by fi (an
// Lstat), and caches it. It returns NotHashed if the file changed while it
// was read. Callers hold mu.
func (s *Store) hashFile(p string, fi fs.FileInfo) (string, error) {
	id, _ := idOf(fi)
	f, ofi, err := safefs.Open(s.root, p, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if oid, _ := idOf(ofi); oid != id {
		return NotHashed, nil // replaced since it was listed
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, id.size), make([]byte, 256<<10))
	s.hashedBytes.Add(n)
	if err != nil {
		return "", err
	}
	after, err := f.Stat()
	if err != nil {
		return "", err
	}
	if aid, _ := idOf(after); aid != id || n != id.size {
		return NotHashed, nil // written to while we read it
	}
	hx := hex.EncodeToString(h.Sum(nil))
	s.keep(p, sum{id: id, hex: hx})
	return hx, nil
}

// HashedBytes is how many bytes the store has read to hash files it did
// not write itself (files written by session code, or found after a lost
// cache). It only grows; tests use it to see that a listing hashes nothing.
func (s *Store) HashedBytes() int64 { return s.hashedBytes.Load() }
