package repl_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/replhost/replhost/repl"
)

// sessionDir makes a bare session directory with an empty classes/repl.
func sessionDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "s")
	if err := os.MkdirAll(filepath.Join(dir, "classes", "repl"), 0o700); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func cellsOf(tb testing.TB, dir string) []string {
	tb.Helper()
	j := repl.OpenJournal(dir, false)
	defer j.Close()
	cells, err := j.Cells()
	if err != nil {
		tb.Fatalf("Cells: %v", err)
	}
	return cells
}

func appendCells(tb testing.TB, dir string, cells ...string) {
	tb.Helper()
	j := repl.OpenJournal(dir, false)
	defer j.Close()
	for _, c := range cells {
		if err := j.Append(c); err != nil {
			tb.Fatalf("Append %q: %v", c, err)
		}
	}
}

// Cells come back in order across reopenings, multi-line and binary-safe.
func TestJournalKeepsCellsInOrder(t *testing.T) {
	dir := sessionDir(t)
	want := []string{"x := 41", "func g() int {\n\treturn x + 1\n}", "s := \"\\x00\u00e9\""}
	appendCells(t, dir, want[:2]...)
	appendCells(t, dir, want[2])
	if got := cellsOf(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("cells = %q; want %q", got, want)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "classes", "repl"))
	if len(entries) != 1 || entries[0].Name() != "journal.seg" {
		t.Errorf("classes/repl holds %v; want journal.seg alone", entries)
	}
}

// A torn tail (a write cut short, or garbage after the last record) is
// dropped, never misread, and the next cell follows the last whole one.
func TestJournalDropsATornTail(t *testing.T) {
	for name, tail := range map[string][]byte{
		"half-header":  {7, 0},
		"short-record": {20, 0, 0, 0, 1, 2, 3, 4, 'x', ' '},
		"bad-checksum": {1, 0, 0, 0, 9, 9, 9, 9, 'y'},
		"zeros":        make([]byte, 4096),
	} {
		t.Run(name, func(t *testing.T) {
			dir := sessionDir(t)
			appendCells(t, dir, "a := 1", "b := 2")
			seg := filepath.Join(dir, "classes", "repl", "journal.seg")
			f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(tail)
			f.Close()
			if got, want := cellsOf(t, dir), []string{"a := 1", "b := 2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("cells = %q; want %q", got, want)
			}
			appendCells(t, dir, "c := 3")
			if got, want := cellsOf(t, dir), []string{"a := 1", "b := 2", "c := 3"}; !reflect.DeepEqual(got, want) {
				t.Errorf("after an append: cells = %q; want %q", got, want)
			}
		})
	}
}

// A journal of the last release (one file per cell) is read once and
// converted to the segment; its files are gone after.
func TestJournalConvertsTheOldFormat(t *testing.T) {
	dir := sessionDir(t)
	jdir := filepath.Join(dir, "classes", "repl")
	for name, cell := range map[string]string{"000001.go": "x := 41", "000002.go": "func g() int { return x + 1 }", "000010.go": "y := g()", "notes.txt": "not a cell"} {
		if err := os.WriteFile(filepath.Join(jdir, name), []byte(cell), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"x := 41", "func g() int { return x + 1 }", "y := g()"}
	if got := cellsOf(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("cells = %q; want %q", got, want)
	}
	for _, n := range []string{"000001.go", "000002.go", "000010.go"} {
		if exists(filepath.Join(jdir, n)) {
			t.Errorf("%s left after the conversion", n)
		}
	}
	appendCells(t, dir, "z := 1")
	if got := cellsOf(t, dir); len(got) != 4 || got[3] != "z := 1" {
		t.Errorf("after an append: %q; want 4 cells ending in z := 1", got)
	}
}

// What the session's code may plant in its journal's place is refused with
// a clear error, never followed or read whole: a symlink (to another
// session's journal, to a secret, to /dev/zero), a sparse 8 GiB file, a
// FIFO, a classes/repl that is a symlink.
func TestJournalRefusesHostileFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cr3t"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := sessionDir(t)
	appendCells(t, other, "balance := 100")
	otherSeg := filepath.Join(other, "classes", "repl", "journal.seg")
	before, _ := os.ReadFile(otherSeg)

	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		want  string
	}{
		{"seg-symlink-to-other-session", func(t *testing.T, dir string) {
			must(t, os.Symlink(otherSeg, seg(dir)))
		}, "journal.seg"},
		{"seg-symlink-to-secret", func(t *testing.T, dir string) { must(t, os.Symlink(secret, seg(dir))) }, "journal.seg"},
		{"seg-symlink-to-dev-zero", func(t *testing.T, dir string) { must(t, os.Symlink("/dev/zero", seg(dir))) }, "journal.seg"},
		{"seg-sparse-8GiB", func(t *testing.T, dir string) {
			f, err := os.Create(seg(dir))
			must(t, err)
			must(t, f.Truncate(8<<30))
			f.Close()
		}, "larger than 64 MiB"},
		{"seg-fifo", func(t *testing.T, dir string) { must(t, syscall.Mkfifo(seg(dir), 0o600)) }, "not a regular file"},
		{"old-cell-symlink-to-secret", func(t *testing.T, dir string) {
			must(t, os.Symlink(secret, filepath.Join(dir, "classes", "repl", "000001.go")))
		}, "000001.go"},
		{"classes-repl-symlink-to-other-session", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "classes", "repl")))
			must(t, os.Symlink(filepath.Join(other, "classes", "repl"), filepath.Join(dir, "classes", "repl")))
		}, "classes/repl"},
		{"classes-repl-relative-symlink-inside", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "classes", "repl")))
			must(t, os.MkdirAll(filepath.Join(dir, "files", "j"), 0o700))
			must(t, os.Symlink("../files/j", filepath.Join(dir, "classes", "repl")))
		}, "classes/repl: not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sessionDir(t)
			tc.plant(t, dir)
			j := repl.OpenJournal(dir, false)
			defer j.Close()
			_, err := j.Cells()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Cells: %v; want an error naming %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cr3t") || err != nil && strings.Contains(err.Error(), "balance") {
				t.Errorf("error %q shows what the link points to", err)
			}
			if err := j.Append("stolen := 1"); err == nil {
				t.Errorf("Append through a planted %s succeeded", tc.name)
			}
			if after, _ := os.ReadFile(otherSeg); string(after) != string(before) {
				t.Errorf("the other session's journal changed")
			}
			if b, _ := os.ReadFile(secret); string(b) != "s3cr3t" {
				t.Errorf("the secret changed: %q", b)
			}
		})
	}
}

// :drop takes a cell out; Clear empties the journal.
func TestJournalDropAndClear(t *testing.T) {
	dir := sessionDir(t)
	appendCells(t, dir, "a := 1", "b := 2", "c := 3")
	j := repl.OpenJournal(dir, false)
	defer j.Close()
	if cell, err := j.Drop(1); err != nil || cell != "b := 2" {
		t.Fatalf("Drop(1) = %q, %v; want b := 2", cell, err)
	}
	if _, err := j.Drop(5); err == nil || err.Error() != "no cell 6: the journal has 2 cells" {
		t.Errorf("Drop(5): %v; want no cell 6", err)
	}
	if got, want := cellsOf(t, dir), []string{"a := 1", "c := 3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cells = %q; want %q", got, want)
	}
	must(t, j.Clear())
	if got := cellsOf(t, dir); len(got) != 0 {
		t.Errorf("cells after Clear = %q; want none", got)
	}
}

func seg(dir string) string { return filepath.Join(dir, "classes", "repl", "journal.seg") }

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
