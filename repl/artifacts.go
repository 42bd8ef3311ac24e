package repl

import (
	"sync"

	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/sandbox"
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
		st, err := artifacts.Open(s.dir, s.m.cfg.Artifacts, s.storeOptions()...)
		if err != nil {
			return nil, err
		}
		s.notifyArtifacts(st)
		s.store.st = st
	}
	return s.store.st, nil
}

// storeOptions are the session's disk quota and, where workers run as
// their own uids, the owner of what the store writes under files/, so the
// session's code can use its uploads.
func (s *Session) storeOptions() []artifacts.Option {
	var opts []artifacts.Option
	if q := s.m.diskQuota(s.owner); q > 0 {
		opts = append(opts, artifacts.Quota(q, 0))
	}
	if ids, err := sandbox.SessionIDs(s.dir); err == nil && ids.UID != 0 {
		opts = append(opts, artifacts.Owner(ids.UID, ids.GID))
	}
	return opts
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
