package audit

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

// BenchmarkRecordCell is the cost the audit log adds to each cell: hash,
// encode, one write(2).
func BenchmarkRecordCell(b *testing.B) {
	l := Open(Options{Path: filepath.Join(b.TempDir(), "audit.jsonl")})
	defer l.Close()
	e := repl.Event{Kind: repl.EventCell, User: "alice", Session: "5b1e3a8c-1d2e-4f5a-8b9c-0d1e2f3a4b5c",
		Outcome: "ok", Duration: 400 * time.Microsecond, Code: `fmt.Println("hello, world")`}
	b.ReportAllocs()
	for b.Loop() {
		l.Record(e)
	}
}
