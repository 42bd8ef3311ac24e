package repl

import (
	"sync"

	"github.com/replhost/replhost/artifacts"
)

// storeSlot holds a session's artifact store, opened on first use: a store
// must be the only one of its directory (it clears stale uploads on Open).
type storeSlot struct {
	mu sync.Mutex // guards st
	st *artifacts.Store
}

// Store returns the session's artifact store.
func (s *Session) Store() (*artifacts.Store, error) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if s.store.st == nil {
		st, err := artifacts.Open(s.dir, s.m.cfg.Artifacts)
		if err != nil {
			return nil, err
		}
		s.notifyArtifacts(st)
		s.store.st = st
	}
	return s.store.st, nil
}

// closeStore closes the store when the session ends.
func (s *Session) closeStore() {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if s.store.st != nil {
		s.store.st.Close()
		s.store.st = nil
	}
}

// ListArtifacts lists the session's uploaded packages, files and archives.
func (s *Session) ListArtifacts() ([]artifacts.Info, error) {
	st, err := s.Store()
	if err != nil {
		return nil, err
	}
	return st.List()
}
