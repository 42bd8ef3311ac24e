package artifacts

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpus in testdata/fuzz")

// The invariant of both fuzz tests: nothing is ever written outside the
// session directory, a refused upload changes nothing, and what is stored
// lands inside its kind's folder.

func FuzzParseName(f *testing.F) {
	s, parent := newStore(f, Limits{MaxFileBytes: 1 << 10})
	f.Fuzz(func(t *testing.T, name string) {
		n, err := ParseName(name)
		if err != nil {
			if !errors.Is(err, ErrBadName) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %q; want one line of ErrBadName", err)
			}
			return
		}
		if !filepath.IsLocal(n.Path) || !strings.HasPrefix(n.Path, n.Kind.Dir()+"/") || strings.Contains("/"+n.Path+"/", "/../") {
			t.Fatalf("got path %q for %q; want it local and in %s/", n.Path, name, n.Kind.Dir())
		}
		if n.Kind == Archive && (!strings.HasPrefix(n.Unpack, "files/") || strings.Count(n.Unpack, "/") != 1) {
			t.Fatalf("got unpack folder %q for %q; want files/ALIAS", n.Unpack, name)
		}
		if n.Kind == Archive {
			return // archives are fuzzed by FuzzUnpack
		}
		_, err = s.Add(name, strings.NewReader("x"), "")
		onlySession(t, parent)
		if err != nil {
			return // e.g. a parent is a file already, or classes/src/FILE
		}
		if b, err := os.ReadFile(filepath.Join(s.Dir(), filepath.FromSlash(n.Path))); err != nil || string(b) != "x" {
			t.Fatalf("got %q, %v at %s; want x", b, err, n.Path)
		}
	})
}

func FuzzUnpack(f *testing.F) {
	lim := Limits{MaxFileBytes: 1 << 20, MaxUnpackedBytes: 1 << 20, MaxEntries: 64}
	s, parent := newStore(f, lim)
	empty := tree(f, s.Dir())
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		name := "archives/f" + []string{".tar", ".tgz", ".zip"}[kind%3]
		n, _ := ParseName(name)
		_, err := s.Add(name, bytes.NewReader(data), "")
		onlySession(t, parent)
		if err != nil {
			if !errors.Is(err, ErrBadArchive) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("got %v; want ErrBadArchive or ErrTooLarge", err)
			}
			sameTree(t, tree(t, s.Dir()), empty)
			return
		}
		base := filepath.Join(s.Dir(), n.Unpack)
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(base, p)
			switch typ := d.Type(); {
			case typ&fs.ModeSymlink != 0:
				if !resolvesInside(base, rel) {
					t.Fatalf("got symlink %s resolving outside %s", rel, n.Unpack)
				}
			case typ != 0 && !d.IsDir():
				t.Fatalf("got %s of type %v; want files, folders and symlinks only", rel, typ)
			}
			return nil
		})
		if err := s.Remove(name); err != nil {
			t.Fatal(err)
		}
		sameTree(t, tree(t, s.Dir()), empty)
	})
}

// onlySession fails if anything but the session directory is in parent.
func onlySession(tb testing.TB, parent string) {
	tb.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		tb.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "sess" {
		tb.Fatalf("got %v beside the session; want nothing", ents)
	}
}

// resolvesInside follows the symlink rel below base as the kernel would
// and reports whether every step stays inside base.
func resolvesInside(base, rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	var cur []string
	for hops := 0; len(parts) > 0; {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := append(cur[:len(cur):len(cur)], p)
		full := filepath.Join(append([]string{base}, next...)...)
		fi, err := os.Lstat(full)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return true // a loop: the kernel gives up (ELOOP), nothing escapes
		}
		t, _ := os.Readlink(full)
		if filepath.IsAbs(t) {
			return false
		}
		parts = append(strings.Split(t, "/"), parts...)
	}
	return true
}

// TestFuzzSeeds writes (with -update-seeds) or checks the seed corpus that
// the fuzz tests run as normal tests, and the fixture archives in
// testdata/hostile/ (for end-to-end tests through ssh, scp and sftp).
func TestFuzzSeeds(t *testing.T) {
	names := map[string]string{
		"source": "classes/src/greet/greet.go", "file": "files/data.txt", "archive-alias": "archives/s.tar.gz#set",
		"dot-dot": "../x", "absolute": "/etc/x", "escape": "files/../../x", "nul": "files/a\x00b",
		"device": "files/nul.txt", "journal": "classes/repl/1.go", "src-file": "classes/src/x.go",
		"empty-element": "files//x", "backslash": `files\..\x`, "unicode": "files/données/é.csv",
		"dot-element": "files/./x", "alias-escape": "archives/a.zip#../../x",
	}
	big := strings.Repeat("\x00", 2<<20)
	archives := map[string]struct {
		kind uint8
		data []byte
	}{
		"good-tar":         {0, tarball(t, false, dir("d/"), file("d/a.txt", "a"), symlink("l", "d/a.txt"), hardlink("h", "d/a.txt"))},
		"good-tgz":         {1, tarball(t, true, file("./x", "x"), symlink("d/up", "../x"))},
		"good-zip":         {2, zipball(t, dir("d/"), file("d/a", "a"), symlink("d/l", "a"))},
		"zip-slip":         {2, zipball(t, file("../../evil", "x"))},
		"symlink-etc":      {0, tarball(t, false, symlink("etc", "/etc"), file("etc/x", "x"))},
		"symlink-dot":      {0, tarball(t, false, symlink("X", "."), symlink("L", "X/../.."))},
		"hardlink-out":     {0, tarball(t, false, hardlink("h", "../../../etc/passwd"))},
		"through-link":     {0, tarball(t, false, dir("d/"), symlink("l", "d"), file("l/f", "x"))},
		"fifo":             {0, tarball(t, false, entry{name: "p", typ: tar.TypeFifo})},
		"gzip-bomb-small":  {1, tarball(t, true, file("zeros", big))},
		"zip-bomb-small":   {2, zipball(t, file("zeros", big))},
		"absolute-entry":   {0, tarball(t, false, file("/tmp/x", "x"))},
		"duplicate-folder": {0, tarball(t, false, dir("d/"), symlink("d", "/"))},
	}
	fixtures := map[string][]byte{
		"set.tar.gz":       tarball(t, true, dir("set/"), file("set/a.txt", "a\n"), symlink("latest", "set/a.txt")),
		"zip-slip.zip":     archives["zip-slip"].data,
		"symlink-etc.tar":  archives["symlink-etc"].data,
		"hardlink-out.tar": archives["hardlink-out"].data,
		"fifo.tar":         archives["fifo"].data,
		"bomb.tar.gz":      gzipBomb(t),
	}
	root := filepath.Join("testdata", "fuzz")
	if *updateSeeds {
		for k, v := range fixtures {
			p := filepath.Join("testdata", "hostile", k)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, v, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for k, v := range names {
			writeSeed(t, filepath.Join(root, "FuzzParseName", k), fmt.Sprintf("string(%q)", v))
		}
		for k, v := range archives {
			writeSeed(t, filepath.Join(root, "FuzzUnpack", k), fmt.Sprintf("[]byte(%q)", v.data), fmt.Sprintf("uint8(%d)", v.kind))
		}
	}
	for dir, want := range map[string]int{"fuzz/FuzzParseName": len(names), "fuzz/FuzzUnpack": len(archives), "hostile": len(fixtures)} {
		ents, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil || len(ents) < want {
			t.Errorf("got %d seeds in %s (%v); want %d: run go test -run TestFuzzSeeds -update-seeds", len(ents), dir, err, want)
		}
	}
}

func writeSeed(tb testing.TB, path string, values ...string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	body := "go test fuzz v1\n" + strings.Join(values, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}
