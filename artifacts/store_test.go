package artifacts

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestOpenMakesLayout(t *testing.T) {
	s, _ := newStore(t, Limits{})
	for _, d := range []string{"classes/src", "classes/repl", "files", "archives"} {
		if fi, err := os.Stat(filepath.Join(s.Dir(), d)); err != nil || !fi.IsDir() {
			t.Errorf("got %v for %s; want a folder", err, d)
		}
	}
	if got := s.Limits(); got != DefaultLimits {
		t.Errorf("got %+v; want %+v", got, DefaultLimits)
	}
}

func TestAddOverwriteRules(t *testing.T) {
	tests := []struct {
		name      string
		first     string
		second    string
		wantErr   error
		wantBytes string
	}{
		{"source-replaced", "classes/src/greet/greet.go", "classes/src/greet/greet.go", nil, "two"},
		{"file-kept", "files/data.txt", "files/data.txt", ErrExists, "one"},
		{"archive-kept", "archives/a.tar", "archives/a.tar", ErrExists, ""},
		{"alias-taken-by-file", "files/set", "archives/b.tar#set", ErrExists, "one"},
		{"archive-folder-taken", "archives/c.tar", "files/c.tar", ErrExists, ""},
	}
	body := func(name, s string) []byte {
		if strings.HasPrefix(name, "archives/") {
			return tarball(t, false, file("x", s))
		}
		return []byte(s)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t, Limits{})
			if _, err := s.Add(tt.first, bytes.NewReader(body(tt.first, "one")), ""); err != nil {
				t.Fatal(err)
			}
			_, err := s.Add(tt.second, bytes.NewReader(body(tt.second, "two")), "")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v; want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "already exists") {
				t.Errorf("got %q; want it to say already exists", err)
			}
			if tt.wantBytes != "" {
				got, _ := os.ReadFile(filepath.Join(s.Dir(), tt.first))
				if string(got) != tt.wantBytes {
					t.Errorf("got %q; want %q", got, tt.wantBytes)
				}
			}
			noTemp(t, s)
		})
	}
}

func TestAddSameBytesAgain(t *testing.T) {
	for _, name := range []string{"files/d.txt", "archives/s.tar.gz#s"} {
		t.Run(strings.ReplaceAll(strings.ReplaceAll(name, "/", "-"), "#", "-"), func(t *testing.T) {
			s, _ := newStore(t, Limits{})
			b := tarball(t, true, file("x", "1"))
			first, err := s.Add(name, bytes.NewReader(b), "")
			if err != nil {
				t.Fatal(err)
			}
			again, err := s.Add(name, bytes.NewReader(b), sha(b))
			if err != nil || again != first {
				t.Errorf("got %+v, %v; want %+v, nil", again, err, first)
			}
			noTemp(t, s)
		})
	}
}

func TestAddArchiveUnpacks(t *testing.T) {
	s, _ := newStore(t, Limits{})
	tgz := tarball(t, true,
		dir("./"), dir("./v1/"), file("./v1/data.txt", "hello"),
		entry{name: "run.sh", typ: '0', body: "#!/bin/sh\n", mode: 0o755},
		symlink("latest", "v1/data.txt"), symlink("v1/up", "../run.sh"), hardlink("again.txt", "v1/data.txt"))
	zp := zipball(t, dir("d/"), file("d/z.txt", "zip"), symlink("d/l", "z.txt"))
	if _, err := s.Add("archives/set.tar.gz", bytes.NewReader(tgz), sha(tgz)); err != nil {
		t.Fatal(err)
	}
	info, err := s.Add("archives/z.zip#zz", bytes.NewReader(zp), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Info{Name: "archives/z.zip", Size: int64(len(zp)), SHA256: sha(zp), Unpacked: "files/zz"}); info != want {
		t.Errorf("got %+v; want %+v", info, want)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(s.Dir(), p))
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	for p, want := range map[string]string{
		"files/set.tar.gz/v1/data.txt": "hello", "files/set.tar.gz/latest": "hello",
		"files/set.tar.gz/again.txt": "hello", "files/set.tar.gz/v1/up": "#!/bin/sh\n",
		"files/zz/d/z.txt": "zip", "files/zz/d/l": "zip", "archives/z.zip": string(zp),
	} {
		if got := read(p); got != want {
			t.Errorf("got %q in %s; want %q", got, p, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(s.Dir(), "files/set.tar.gz/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("got %v, %v; want an executable run.sh", fi, err)
	}
	noTemp(t, s)
}

func TestListAndRemove(t *testing.T) {
	s, _ := newStore(t, Limits{})
	tgz := tarball(t, true, file("in.txt", "x"))
	adds := map[string][]byte{
		"classes/src/greet/greet.go": []byte("package greet"),
		"files/b.txt":                []byte("bb"),
		"files/a/c.txt":              []byte("c"),
		"archives/set.tgz#set":       tgz,
	}
	for n, b := range adds {
		if _, err := s.Add(n, bytes.NewReader(b), ""); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(s.Dir(), "classes/repl/0001.go"), []byte("x := 1"), 0o644)
	got, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{"classes/src/greet/greet.go", 13, sha([]byte("package greet")), ""},
		{"files/a/c.txt", 1, sha([]byte("c")), ""},
		{"files/b.txt", 2, sha([]byte("bb")), ""},
		{"archives/set.tgz", int64(len(tgz)), sha(tgz), "files/set"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v; want %+v", got, want)
	}

	if err := s.Remove("files/set"); !errors.Is(err, ErrBadName) {
		t.Errorf("got %v; want ErrBadName for an unpack folder", err)
	}
	for _, n := range []string{"archives/set.tgz", "files/a", "classes/src/greet"} {
		if err := s.Remove(n); err != nil {
			t.Errorf("got %v removing %s; want nil", err, n)
		}
	}
	if err := s.Remove("files/nope"); !errors.Is(err, ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want ErrNotFound", err)
	}
	got, _ = s.List()
	if len(got) != 1 || got[0].Name != "files/b.txt" {
		t.Errorf("got %+v; want only files/b.txt", got)
	}
	for _, p := range []string{"files/set", ".meta/set.tgz", "classes/src/greet"} {
		if _, err := os.Lstat(filepath.Join(s.Dir(), p)); !os.IsNotExist(err) {
			t.Errorf("got %v for %s; want it gone", err, p)
		}
	}
}

func TestListSeesChangedFiles(t *testing.T) {
	s, _ := newStore(t, Limits{})
	s.Add("files/x", strings.NewReader("one"), "")
	s.List()
	p := filepath.Join(s.Dir(), "files/x")
	os.WriteFile(p, []byte("three"), 0o644) // session code rewrites it
	got, _ := s.List()
	if len(got) != 1 || got[0].SHA256 != sha([]byte("three")) {
		t.Errorf("got %+v; want the sum of the new bytes", got)
	}
}

func TestOpenCleansUp(t *testing.T) {
	s, _ := newStore(t, Limits{})
	dir := s.Dir()
	s.Close()
	// A crash mid-upload and mid-archive-commit: a temp file, and an
	// archive record with its unpacked folder but no archive.
	os.WriteFile(filepath.Join(dir, tmpDir, "up-x"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(dir, metaDir, "s.tar"), []byte("files/s.tar"), 0o644)
	os.MkdirAll(filepath.Join(dir, "files/s.tar/d"), 0o755)
	s2, err := Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	noTemp(t, s2)
	for _, p := range []string{"files/s.tar", metaDir + "/s.tar"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("got %v for %s; want it gone", err, p)
		}
	}
}

func TestPlantedSymlinkRefused(t *testing.T) {
	s, _ := newStore(t, Limits{})
	// Session code may plant a link from files/ into another kind's folder.
	os.Symlink("../classes/src", filepath.Join(s.Dir(), "files/evil"))
	before := tree(t, s.Dir())
	_, err := s.Add("files/evil/p/x.go", strings.NewReader("package p"), "")
	if !errors.Is(err, ErrBadName) {
		t.Errorf("got %v; want ErrBadName", err)
	}
	if after := tree(t, s.Dir()); !slices.Equal(after, before) {
		t.Errorf("got %v; want %v", after, before)
	}
}

func TestConcurrentAddsOneWins(t *testing.T) {
	s, _ := newStore(t, Limits{})
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Add("files/race", strings.NewReader(strings.Repeat("x", i+1)), "")
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrExists):
			t.Errorf("got %v; want nil or ErrExists", err)
		}
	}
	if won != 1 {
		t.Errorf("got %d winners; want 1", won)
	}
	noTemp(t, s)
}

func TestView(t *testing.T) {
	s, _ := newStore(t, Limits{})
	s.Add("files/a.txt", strings.NewReader("a"), "")
	os.WriteFile(filepath.Join(s.Dir(), "session.json"), []byte("{}"), 0o644)
	names := func(p string) []string {
		fis, err := s.ReadDir(p)
		if err != nil {
			t.Fatalf("ReadDir(%q): %v", p, err)
		}
		var out []string
		for _, fi := range fis {
			out = append(out, fi.Name())
		}
		return out
	}
	for p, want := range map[string][]string{
		".": {"archives", "classes", "files"}, "": {"archives", "classes", "files"},
		"classes": {"src"}, "files": {"a.txt"}, "archives": nil,
	} {
		if got := names(p); !slices.Equal(got, want) {
			t.Errorf("got %v for %q; want %v", got, p, want)
		}
	}
	for _, p := range []string{"session.json", "classes/repl", ".tmp", ".meta", "files/nope"} {
		if _, err := s.Stat(p); !errors.Is(err, ErrNotFound) {
			t.Errorf("got %v for %q; want ErrNotFound", err, p)
		}
	}
	for _, p := range []string{"../sess", "files/../../x"} {
		if _, err := s.Open(p); err == nil {
			t.Errorf("got nil for %q; want an error", p)
		}
	}
	f, err := s.Open("/files/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.Mkdir("classes/src/pkg"); err != nil {
		t.Errorf("got %v; want nil", err)
	}
	if err := s.Mkdir("classes/src/pkg"); !errors.Is(err, ErrExists) {
		t.Errorf("got %v; want ErrExists", err)
	}
	if err := s.Mkdir("archives/x.tar"); !errors.Is(err, ErrBadName) {
		t.Errorf("got %v; want ErrBadName", err)
	}
}
