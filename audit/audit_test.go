package audit

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// Each kind of event is one line with its own fields; the code is only
// hashed unless Code is set; the file is the owner's only.
func TestLinesByKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := Open(Options{Path: path, Now: func() time.Time { return at }})
	l.Record(repl.Event{Kind: repl.EventLoginRefused, User: "eve", Remote: "127.0.0.1:5", Key: "SHA256:x", Reason: "key not authorized"})
	l.Record(repl.Event{Kind: repl.EventCell, User: "alice", Session: "s1", Outcome: "ok", Duration: 1500 * time.Microsecond, Code: "1+1"})
	l.Record(repl.Event{Kind: repl.EventArtifactAdded, User: "alice", Session: "s1", Name: "files/a", Size: 3, SHA256: "ab"})
	l.Record(repl.Event{Kind: repl.EventUDFCall, User: "alice", Session: "s1", Name: "up", Records: 10, Failed: 2})
	l.Record(repl.Event{Kind: repl.EventSessionCrashed, User: "alice", Session: "s1", Reason: "killed at memory cap 1MiB"})
	l.Close()
	got := lines(t, path)
	want := []string{
		`{"event":"login-refused","key":"SHA256:x","reason":"key not authorized","remote":"127.0.0.1:5","time":"2026-01-02T03:04:05Z","user":"eve"}`,
		`{"code_sha256":"` + sha256Hex("1+1") + `","duration_ms":1.5,"event":"cell","outcome":"ok","session":"s1","time":"2026-01-02T03:04:05Z","user":"alice"}`,
		`{"event":"artifact-added","name":"files/a","session":"s1","sha256":"ab","size":3,"time":"2026-01-02T03:04:05Z","user":"alice"}`,
		`{"event":"udf-call","failed":2,"name":"up","records":10,"session":"s1","time":"2026-01-02T03:04:05Z","user":"alice"}`,
		`{"event":"session-crashed","reason":"killed at memory cap 1MiB","session":"s1","time":"2026-01-02T03:04:05Z","user":"alice"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines; want %d", len(got), len(want))
	}
	for i := range want {
		b, _ := json.Marshal(got[i]) // map keys sorted
		w := want[i]
		if string(b) != w {
			t.Errorf("line %d:\n got %s\nwant %s", i, b, w)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
}

// Lines from many goroutines never interleave, and rotation by size keeps
// every line whole in one file or another.
func TestConcurrentLinesStayWholeAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := Open(Options{Path: path, MaxSize: 1 << 20, Code: true})
	code := strings.Repeat("x", 10<<10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				l.Record(repl.Event{Kind: repl.EventCell, Session: string(rune('a' + g)), Code: code})
			}
		}()
	}
	wg.Wait()
	l.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "audit*.jsonl"))
	if len(files) < 2 {
		t.Fatalf("files %v; want the log rotated at 1 MiB", files)
	}
	n := 0
	for _, f := range files {
		for _, m := range lines(t, f) {
			if m["code"] != code {
				t.Fatalf("a line lost its code")
			}
			n++
		}
	}
	if n != 400 {
		t.Errorf("%d lines; want 400", n)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
