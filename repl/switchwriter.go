package repl

import (
	"io"
	"sync"
)

// switchWriter is the output of a session's code: it goes to whoever is
// attached now, and nowhere while nobody is. Goroutines the code started may
// write at any time, so the target is swapped under a lock.
type switchWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	if _, err := s.w.Write(p); err != nil {
		// The client went away; the code must not fail for it.
		s.w = nil
	}
	return len(p), nil
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}
