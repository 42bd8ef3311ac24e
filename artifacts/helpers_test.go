package artifacts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// newStore opens a store on a fresh session directory inside a fresh parent
// folder, so that tests can check nothing appears beside the session.
func newStore(tb testing.TB, lim Limits, opts ...Option) (*Store, string) {
	tb.Helper()
	parent := tb.TempDir()
	dir := filepath.Join(parent, "sess")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	s, err := Open(dir, lim, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, parent
}

// tree lists every path below dir with its type and size (and link target),
// for comparing a folder before and after an operation. The store's sums
// log is left out: a cache that grows with every upload.
func tree(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Name() == "sums.log" && filepath.Base(filepath.Dir(p)) == metaDir {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := rel + " " + fi.Mode().Type().String()
		if fi.Mode().IsRegular() {
			line += " " + strings.Repeat("#", int(min(fi.Size(), 8)))
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			line += " -> " + t
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// noTemp fails if the store's private temp folder holds anything.
func noTemp(tb testing.TB, s *Store) {
	tb.Helper()
	ents, err := os.ReadDir(filepath.Join(s.Dir(), tmpDir))
	if err != nil {
		tb.Fatal(err)
	}
	if len(ents) != 0 {
		tb.Errorf("got %d leftovers in %s; want none", len(ents), tmpDir)
	}
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// entry is one member of a test archive.
type entry struct {
	name string
	typ  byte   // a tar.Type* flag; zip uses dir, symlink or regular
	body string // file content, or link target
	mode int64
}

func file(name, body string) entry  { return entry{name: name, typ: tar.TypeReg, body: body} }
func dir(name string) entry         { return entry{name: name, typ: tar.TypeDir} }
func symlink(name, to string) entry { return entry{name: name, typ: tar.TypeSymlink, body: to} }
func hardlink(name, to string) entry {
	return entry{name: name, typ: tar.TypeLink, body: to}
}

// tarball builds a tar (gzipped if gz) of the entries.
func tarball(tb testing.TB, gz bool, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Format: tar.FormatPAX}
		if e.mode != 0 {
			h.Mode = e.mode
		}
		switch e.typ {
		case tar.TypeReg:
			h.Size = int64(len(e.body))
		case tar.TypeSymlink, tar.TypeLink:
			h.Linkname = e.body
		case tar.TypeDir:
			h.Mode = 0o755
		}
		if err := w.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			w.Write([]byte(e.body))
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

// zipball builds a zip of the entries.
func zipball(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		switch e.typ {
		case tar.TypeDir:
			h.SetMode(fs.ModeDir | 0o755)
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
		case tar.TypeChar:
			h.SetMode(fs.ModeDevice | fs.ModeCharDevice | 0o644)
		default:
			h.SetMode(0o644)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			tb.Fatal(err)
		}
		f.Write([]byte(e.body))
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// sameTree fails, showing a few differences, if two trees differ.
func sameTree(tb testing.TB, got, want []string) {
	tb.Helper()
	if slices.Equal(got, want) {
		return
	}
	var diff []string
	for _, g := range got {
		if !slices.Contains(want, g) && len(diff) < 5 {
			diff = append(diff, "+"+g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) && len(diff) < 10 {
			diff = append(diff, "-"+w)
		}
	}
	tb.Errorf("got a changed tree (%d paths; want %d): %v", len(got), len(want), diff)
}
