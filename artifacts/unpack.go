package artifacts

import (
	"archive/tar"
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// extractor writes the entries of one archive into a fresh folder, refusing
// anything that could reach outside it: names that are absolute or hold
// "..", symlinks whose target leaves the folder, hard links to anything but
// a file of the same archive, entries written through a symlink, devices
// and fifos; and it stops at the caps on entries and unpacked bytes.
//
// Symlink targets may start with "../" elements but hold no ".." after a
// name, and every link's parents are real folders (kinds says so), so a
// target is resolved exactly as its lexical form says: it stays inside.
type extractor struct {
	root    *os.Root // the folder being unpacked into; only we write to it
	lim     Limits
	name    string // the archive's name, for errors
	entries int    // entries made, implicit folders included
	bytes   int64  // bytes written
	alloc   int64  // bytes allocated on disk, as the quota counts them
	quota   *quotaCap
	// kinds records every path made: fs.ModeDir, fs.ModeSymlink, or 0 for a
	// regular file.
	kinds map[string]fs.FileMode
}

// quotaCap is what the session's disk quota leaves for one archive; a
// field < 0 is no cap.
type quotaCap struct {
	bytes, entries      int64
	bytesErr, inodesErr error
}

// quotaBytesLeft is how many more bytes the quota allows; MaxInt64 if none.
func (x *extractor) quotaBytesLeft() int64 {
	if x.quota == nil || x.quota.bytes < 0 {
		return math.MaxInt64
	}
	return x.quota.bytes - x.alloc
}

// mkdir makes the folder p and counts its block against the quota.
func (x *extractor) mkdir(p string) error {
	if x.quotaBytesLeft() < blockSize {
		return x.quota.bytesErr
	}
	if err := x.root.Mkdir(p, 0o755); err != nil {
		return ioErr(x.name, err)
	}
	x.alloc += blockSize
	x.kinds[p] = fs.ModeDir
	return nil
}

func newExtractor(root *os.Root, lim Limits, name string) *extractor {
	return &extractor{root: root, lim: lim, name: name, kinds: map[string]fs.FileMode{}}
}

func (x *extractor) bad(entry, format string, args ...any) error {
	return errf(x.name, ErrBadArchive, "entry %q: %s", entry, fmt.Sprintf(format, args...))
}

// count adds one entry and fails past the cap.
func (x *extractor) count() error {
	x.entries++
	if x.entries > x.lim.MaxEntries {
		return errf(x.name, ErrTooLarge, "archive has more than %d entries", x.lim.MaxEntries)
	}
	if x.quota != nil && x.quota.entries >= 0 && int64(x.entries) > x.quota.entries {
		return x.quota.inodesErr
	}
	return nil
}

// place checks raw, creates the folders above it and checks that it is new.
// It returns the cleaned name, "" for the archive's own top folder.
func (x *extractor) place(raw string) (string, error) {
	if err := x.count(); err != nil {
		return "", err
	}
	e, msg := localEntry(raw)
	if msg != "" {
		return "", x.bad(raw, "%s", msg)
	}
	if e == "" {
		return "", nil
	}
	dir := path.Dir(e)
	for i := 0; i <= len(dir) && dir != "."; i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		p := dir[:i]
		k, ok := x.kinds[p]
		if !ok {
			if err := x.count(); err != nil {
				return "", err
			}
			if err := x.mkdir(p); err != nil {
				return "", err
			}
			continue
		}
		if k != fs.ModeDir {
			return "", x.bad(raw, "goes through %q, which is not a folder", p)
		}
	}
	if _, ok := x.kinds[e]; ok {
		return "", x.bad(raw, "appears twice")
	}
	return e, nil
}

func (x *extractor) dir(raw string) error {
	if e, msg := localEntry(raw); msg == "" && x.kinds[e] == fs.ModeDir && e != "" {
		return x.count() // a folder made implicitly before, or declared twice
	}
	e, err := x.place(raw)
	if err != nil || e == "" {
		return err
	}
	return x.mkdir(e)
}

func (x *extractor) file(raw string, mode fs.FileMode, r io.Reader, size int64) error {
	e, err := x.place(raw)
	if err != nil {
		return err
	}
	if e == "" {
		return x.bad(raw, "a file with no name")
	}
	left := x.lim.MaxUnpackedBytes - x.bytes
	tooBig := errf(x.name, ErrTooLarge, "archive unpacks to more than %s", bytesText(x.lim.MaxUnpackedBytes))
	if size > left {
		return tooBig
	}
	qleft := x.quotaBytesLeft()
	if allocated(size) > qleft {
		return x.quota.bytesErr
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	f, err := x.root.OpenFile(e, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return ioErr(x.name, err)
	}
	defer f.Close()
	x.kinds[e] = 0
	n, err := io.Copy(f, io.LimitReader(r, min(left, qleft)+1))
	x.bytes += n
	x.alloc += allocated(n)
	switch {
	case x.bytes > x.lim.MaxUnpackedBytes:
		return tooBig
	case x.quotaBytesLeft() < 0:
		return x.quota.bytesErr
	case err != nil:
		return x.bad(raw, "%v", err)
	}
	if err := f.Sync(); err != nil {
		return ioErr(x.name, err)
	}
	return f.Close()
}

func (x *extractor) symlink(raw, target string) error {
	e, err := x.place(raw)
	if err != nil {
		return err
	}
	if e == "" {
		return x.bad(raw, "a symlink with no name")
	}
	if msg := badTarget(e, target); msg != "" {
		return x.bad(raw, "symlink to %q %s", target, msg)
	}
	if err := x.root.Symlink(target, e); err != nil {
		return ioErr(x.name, err)
	}
	x.kinds[e] = fs.ModeSymlink
	return nil
}

// badTarget says what is wrong with the target of symlink e, or "".
func badTarget(e, target string) string {
	switch {
	case target == "":
		return "is empty"
	case strings.HasPrefix(target, "/"):
		return "is absolute"
	case len(target) > maxNameLen || badChars(target) != "":
		return "has a bad name"
	}
	up := true
	for _, el := range strings.Split(target, "/") {
		switch {
		case el == ".." && !up:
			return "holds .. after a name"
		case el != "..":
			up = false
		}
	}
	if !filepath.IsLocal(path.Join(path.Dir(e), target)) {
		return "points outside the archive"
	}
	return ""
}

func (x *extractor) hardlink(raw, target string) error {
	t, msg := localEntry(target)
	if msg != "" || t == "" {
		return x.bad(raw, "hard link to %q points outside the archive", target)
	}
	if k, ok := x.kinds[t]; !ok || k != 0 {
		return x.bad(raw, "hard link to %q, which is not a file earlier in the archive", target)
	}
	e, err := x.place(raw)
	if err != nil {
		return err
	}
	if e == "" {
		return x.bad(raw, "a hard link with no name")
	}
	if err := x.root.Link(t, e); err != nil {
		return ioErr(x.name, err)
	}
	x.kinds[e] = 0
	return nil
}

func (x *extractor) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) { // our own checks refuse those
			return errf(x.name, ErrBadArchive, "not a valid tar archive: %v", err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = x.dir(h.Name)
		case tar.TypeReg, tar.TypeGNUSparse:
			err = x.file(h.Name, fs.FileMode(h.Mode), tr, h.Size)
		case tar.TypeSymlink:
			err = x.symlink(h.Name, h.Linkname)
		case tar.TypeLink:
			err = x.hardlink(h.Name, h.Linkname)
		case tar.TypeXGlobalHeader:
			err = x.count() // PAX defaults for the entries that follow: nothing to make, but counted
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			err = x.bad(h.Name, "is a device or a fifo")
		default:
			err = x.bad(h.Name, "has unsupported tar type %q", h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

func (x *extractor) zip(r io.ReaderAt, size int64) error {
	if err := zipCount(r, size, x.lim.MaxEntries); err != nil {
		return errf(x.name, ErrTooLarge, "archive has more than %d entries in its central directory", x.lim.MaxEntries)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // our own checks refuse those
		return errf(x.name, ErrBadArchive, "not a valid zip archive: %v", err)
	}
	if len(zr.File) > x.lim.MaxEntries {
		return errf(x.name, ErrTooLarge, "archive has more than %d entries", x.lim.MaxEntries)
	}
	for _, zf := range zr.File {
		if err := x.zipEntry(zf); err != nil {
			return err
		}
	}
	return nil
}

func (x *extractor) zipEntry(zf *zip.File) error {
	m := zf.Mode()
	if m.IsDir() {
		return x.dir(zf.Name)
	}
	if m&^(fs.ModePerm|fs.ModeSymlink|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
		return x.bad(zf.Name, "is a device, a fifo or a socket")
	}
	rc, err := zf.Open()
	if err != nil {
		return x.bad(zf.Name, "%v", err)
	}
	defer rc.Close()
	if m&fs.ModeSymlink != 0 {
		b, err := io.ReadAll(io.LimitReader(rc, maxNameLen+1))
		if err != nil {
			return x.bad(zf.Name, "%v", err)
		}
		if len(b) > maxNameLen {
			return x.bad(zf.Name, "symlink target longer than %d bytes", maxNameLen)
		}
		return x.symlink(zf.Name, string(b))
	}
	size := int64(math.MaxInt64)
	if zf.UncompressedSize64 < math.MaxInt64 {
		size = int64(zf.UncompressedSize64)
	}
	return x.file(zf.Name, m, rc, size)
}
