package repl

// Counts returns how many sessions the host has in each state, for metrics.
func (m *Manager) Counts() map[State]int {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	counts := map[State]int{StateLive: 0, StateDetached: 0, StateRestorable: 0}
	for _, s := range all {
		counts[s.Info().State]++
	}
	return counts
}

// Touch marks owner's session id as used now, without holding it: for
// requests too short to attach (an sftp operation), which must neither
// rewrite session.json nor be refused while a cell runs.
func (m *Manager) Touch(owner, id string) (*Session, error) {
	if m.clustered() {
		s, err := m.acquireClaimed(owner, id)
		if err != nil {
			return nil, err
		}
		m.unhold(s)
		return s, nil
	}
	return m.use(owner, id, false)
}
