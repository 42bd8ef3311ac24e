package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
	"sync"
)

// Upload is an artifact being written. Its bytes go to a private temporary
// file; Commit verifies them and makes the artifact visible whole, Abort
// drops them. Until Commit returns, nothing of it is visible.
//
// WriteAt may be called from several goroutines at once and out of order
// (as an sftp server does); Write appends and is for a single writer.
type Upload struct {
	s    *Store
	name string // as the caller gave it, for errors
	n    Name
	tmp  string
	f    *os.File
	max  int64
	room room // the session's usage when the upload started, for the quota

	// mu guards everything below. The bytes [0, written) have all been
	// written; writes that land beyond written wait in pending (start →
	// end) until the gap before them is filled. The hash covers [0, hashed)
	// of the file and is advanced by a goroutine of its own (hashAhead),
	// which reads the file back (the page cache) while the writes go on:
	// the file stays the one truth, whatever the writes overlap, the writers
	// never wait for SHA-256, and Commit seldom has to read it all again.
	mu      sync.Mutex
	size    int64
	written int64
	pending map[int64]int64
	claimed int64         // hashAhead reads up to here; a write below it means rehash
	hashing chan struct{} // non-nil while hashAhead runs; closed when it ends
	rehash  bool          // a write went below claimed: hash it all again at Commit
	err     error         // the first failed write; Commit returns it
	done    bool
	res     int64 // bytes of the quota reserved (Store.reserved)

	// Owned by hashAhead while it runs, by Commit once it has ended.
	h       hash.Hash
	hashed  int64
	flushed int64 // writeback started up to here
}

// maxPending bounds the out-of-order writes remembered; beyond it Commit
// reads the rest of the file back.
const maxPending = 4096

// hashStep is how much written, unhashed data makes hashAhead start (it
// ends when less is left), and the most it reads in one claim.
const hashStep = 1 << 20

// writebackStep is how much of the hashed prefix accumulates before its
// writeback to disk is started.
const writebackStep = 8 << 20

// Create starts an upload of the named artifact.
func (s *Store) Create(name string) (*Upload, error) {
	n, err := ParseName(name)
	if err != nil {
		return nil, err
	}
	if n.Kind == Source && !strings.Contains(n.Rel(), "/") {
		return nil, errf(name, ErrBadName, "a package file goes in classes/src/PACKAGE/FILE")
	}
	r, err := s.checkRoom(name, 1)
	if err != nil {
		return nil, err
	}
	tmp := tempName("up-")
	f, err := s.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, ioErr(name, err)
	}
	return &Upload{s: s, name: name, n: n, tmp: tmp, f: f, max: s.lim.MaxFileBytes, room: r,
		h: sha256.New(), pending: map[int64]int64{}}, nil
}

// Name is the validated name of the upload.
func (u *Upload) Name() Name { return u.n }

// WriteAt writes p at off of the artifact.
func (u *Upload) WriteAt(p []byte, off int64) (int, error) {
	end := off + int64(len(p))
	if off < 0 || end < off {
		return 0, u.fail(errf(u.name, ErrBadName, "bad write offset %d", off))
	}
	if end > u.max {
		return 0, u.fail(errf(u.name, ErrTooLarge, "larger than the limit of %s", bytesText(u.max)))
	}
	if err := u.grow(end); err != nil {
		return 0, err
	}
	n, err := u.f.WriteAt(p, off) // pwrite: safe to run concurrently
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		return n, u.failLocked(ioErr(u.name, err))
	}
	u.size = max(u.size, end)
	u.track(off, end)
	return n, nil
}

// Write appends p. It must not race with other writes.
func (u *Upload) Write(p []byte) (int, error) {
	u.mu.Lock()
	off := u.size
	u.mu.Unlock()
	return u.WriteAt(p, off)
}

// ReadFrom appends everything r yields, up to the size limit; a failure of
// r fails the upload. io.Copy uses it.
func (u *Upload) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var total int64
	for {
		n, err := fill(r, buf)
		if n > 0 {
			if _, werr := u.Write(buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, u.fail(errf(u.name, err, "upload cut off: %v", err))
		}
	}
}

// fill reads into buf until it is full or r fails; unlike io.ReadFull it
// passes r's error on as it is, so a clean EOF stays distinct from a cut.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// track records the write [off, end) and starts hashAhead when enough
// has been written in order. Callers hold mu.
func (u *Upload) track(off, end int64) {
	switch {
	case u.rehash:
		return
	case off < u.claimed:
		// Hashed already, or being read by hashAhead: the hash may no
		// longer be of what the file holds.
		u.rehash, u.pending = true, nil
		return
	case off <= u.written:
		u.written = max(u.written, end)
		for {
			e, ok := u.pending[u.written]
			if !ok {
				break
			}
			delete(u.pending, u.written)
			u.written = max(u.written, e)
		}
	case len(u.pending) < maxPending:
		u.pending[off] = max(u.pending[off], end)
	}
	if u.hashing == nil && !u.done && u.written-u.claimed >= hashStep {
		u.hashing = make(chan struct{})
		go u.hashAhead(u.hashing)
	}
}

// hashAhead hashes the written prefix from the file while at least
// hashStep of it is unhashed, starts its writeback to disk, and ends (it
// is started again by the write that makes hashStep more). It ends too
// once the upload is finished or must be hashed again; Commit and Abort
// wait for it.
func (u *Upload) hashAhead(running chan struct{}) {
	defer close(running)
	buf := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(buf)
	for {
		u.mu.Lock()
		if u.done || u.rehash || u.written-u.claimed < hashStep {
			u.hashing = nil
			u.mu.Unlock()
			return
		}
		from, to := u.claimed, min(u.written, u.claimed+hashStep)
		u.claimed = to
		u.mu.Unlock()
		if err := hashRange(u.f, u.h, *buf, from, to); err != nil {
			u.mu.Lock()
			u.rehash = true // Commit reads it all again, and reports the error
			u.hashing = nil
			u.mu.Unlock()
			return
		}
		u.hashed = to
		if u.hashed-u.flushed >= writebackStep {
			startWriteback(u.f, u.flushed, u.hashed-u.flushed)
			u.flushed = u.hashed
		}
	}
}

// hashBufs are the buffers the file is read back into for its hash.
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// hashRange hashes [from, to) of f into h, reading through buf.
func hashRange(f *os.File, h hash.Hash, buf []byte, from, to int64) error {
	for from < to {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), to-from)], from)
		h.Write(buf[:n])
		from += int64(n)
		if err == io.EOF && from < to {
			return io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// stopHashing ends hashAhead, if it runs, and waits for it. Callers have
// set done, so that it is not started again.
func (u *Upload) stopHashing() {
	u.mu.Lock()
	running := u.hashing
	u.mu.Unlock()
	if running != nil {
		<-running
	}
}

// grow reserves the quota for the upload to reach end bytes, failing the
// upload if it would pass the quota or is finished.
func (u *Upload) grow(end int64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return errf(u.name, ErrClosed, "upload already finished")
	}
	need := allocated(end) - u.res
	if need <= 0 {
		return nil
	}
	if err := u.s.reserve(u.name, u.room, need); err != nil {
		return u.failLocked(err)
	}
	u.res += need
	return nil
}

// release gives back the upload's reservation. Callers hold mu.
func (u *Upload) release() {
	u.s.reserved.Add(-u.res)
	u.res = 0
}

// fail records err as the upload's failure and returns it.
func (u *Upload) fail(err error) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.failLocked(err)
}

func (u *Upload) failLocked(err error) error {
	if u.err == nil {
		u.err = err
	}
	return err
}

// Commit verifies the upload (its SHA-256 against wantSHA256, lower- or
// upper-case hex, if not empty), makes it durable and visible under its name
// following the overwrite rules, and unpacks an archive. On any error
// nothing is left behind. Commit and Abort may be called once between them;
// later calls return ErrClosed.
func (u *Upload) Commit(wantSHA256 string) (Info, error) {
	u.mu.Lock()
	if u.done {
		u.mu.Unlock()
		return Info{}, errf(u.name, ErrClosed, "upload already finished")
	}
	u.done = true
	err := u.err
	u.mu.Unlock()
	u.stopHashing() // before anything reads u.h or closes the file
	defer func() {
		u.mu.Lock()
		u.release()
		u.mu.Unlock()
	}()
	defer u.s.root.Remove(u.tmp) // a no-op once renamed into place
	if err != nil {
		u.f.Close()
		return Info{}, err
	}
	sum, err := u.finish(wantSHA256)
	if err != nil {
		return Info{}, err
	}
	// Measured again: the session's code may have written meanwhile.
	r, err := u.s.checkRoom(u.name, 1)
	if err != nil {
		return Info{}, err
	}
	info, err := u.s.commit(u.name, u.n, u.tmp, u.size, sum, r)
	if err == nil && u.s.OnChange != nil {
		u.s.OnChange(true, info)
	}
	return info, err
}

// finish fsyncs, hashes and verifies the temporary file, then closes it.
func (u *Upload) finish(want string) (string, error) {
	defer u.f.Close()
	if err := checkSHA(u.name, want); err != nil {
		return "", err
	}
	if err := u.f.Sync(); err != nil {
		return "", ioErr(u.name, err)
	}
	fi, err := u.f.Stat()
	if err != nil {
		return "", ioErr(u.name, err)
	}
	if fi.Size() != u.size {
		return "", errf(u.name, ErrChecksum, "size is %d bytes; %d were written", fi.Size(), u.size)
	}
	if u.rehash {
		u.h.Reset()
		u.hashed = 0
	}
	buf := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(buf)
	if err := hashRange(u.f, u.h, *buf, u.hashed, u.size); err != nil {
		return "", ioErr(u.name, err)
	}
	got := hex.EncodeToString(u.h.Sum(nil))
	if want != "" && !strings.EqualFold(got, want) {
		return "", errf(u.name, ErrChecksum, "sha256 mismatch: got %s, want %s", got, strings.ToLower(want))
	}
	return got, nil
}

// Abort drops the upload. It is safe to call at any time, and again.
func (u *Upload) Abort() error {
	u.mu.Lock()
	if u.done {
		u.mu.Unlock()
		return nil
	}
	u.done = true
	u.release()
	u.mu.Unlock()
	u.stopHashing()
	u.f.Close()
	if err := u.s.root.Remove(u.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ioErr(u.name, err)
	}
	return nil
}

// Add stores the artifact name with the bytes of r: the same as Create,
// io.Copy, then Commit(wantSHA256), with Abort on any failure, so a reader
// that fails half-way (a client cut off) leaves nothing.
func (s *Store) Add(name string, r io.Reader, wantSHA256 string) (Info, error) {
	if err := checkSHA(name, wantSHA256); err != nil {
		return Info{}, err
	}
	u, err := s.Create(name)
	if err != nil {
		return Info{}, err
	}
	if _, err := u.ReadFrom(r); err != nil {
		u.Abort()
		return Info{}, err
	}
	return u.Commit(wantSHA256)
}

func checkSHA(name, want string) error {
	if want == "" {
		return nil
	}
	if _, err := hex.DecodeString(want); err != nil || len(want) != sha256.Size*2 {
		return errf(name, ErrChecksum, "%s", fmt.Sprintf("sha256 must be %d hex digits", sha256.Size*2))
	}
	return nil
}
