package sandbox

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// writeRecorder keeps each Write apart, to count the writes.
type writeRecorder struct {
	mu     sync.Mutex
	writes [][]byte
	more   chan struct{}
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, bytes.Clone(p))
	w.mu.Unlock()
	select {
	case w.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *writeRecorder) frames(t *testing.T) [][]frame {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out [][]frame
	for _, b := range w.writes {
		var fs []frame
		r := bytes.NewReader(b)
		for r.Len() > 0 {
			f, err := readFrame(r)
			if err != nil {
				t.Fatalf("write %q: %v", b, err)
			}
			fs = append(fs, f)
		}
		out = append(out, fs)
	}
	return out
}

// A cell's shown value held for its reply leaves with the reply in one
// write, and arms no timer; output held the ordinary way after it still
// goes out on its own, holdFor later, if no reply comes.
func TestHoldForSendGoesWithTheReply(t *testing.T) {
	rec := &writeRecorder{more: make(chan struct{}, 1)}
	fw := &frameWriter{w: rec}
	if err := fw.holdChunks(msgStdout, 7, []byte("42\n"), true); err != nil {
		t.Fatal(err)
	}
	fw.mu.Lock()
	timed := fw.timed
	fw.mu.Unlock()
	if timed {
		t.Error("a hold for the reply armed the timer")
	}
	if err := fw.send(msgResult, 7, []byte("ok")); err != nil {
		t.Fatal(err)
	}
	got := rec.frames(t)
	if len(got) != 1 || len(got[0]) != 2 || got[0][0].typ != msgStdout || string(got[0][0].payload) != "42\n" || got[0][1].typ != msgResult {
		t.Fatalf("writes %+v; want one: the value, then the result", got)
	}

	// A goroutine's output after a hold for the reply: the timer sends
	// both when no reply comes.
	if err := fw.holdChunks(msgStdout, 8, []byte("a\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := fw.holdChunks(msgStderr, 8, []byte("b\n"), false); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for len(rec.frames(t)) < 2 {
		select {
		case <-rec.more:
		case <-deadline:
			t.Fatal("held output never went out")
		}
	}
	got = rec.frames(t)
	if len(got) != 2 || len(got[1]) != 2 || string(got[1][0].payload) != "a\n" || string(got[1][1].payload) != "b\n" {
		t.Fatalf("writes %+v; want the two held frames in one write", got)
	}
}
