package repl

// IdleCounts are the host's idle releases and idle spells looked at; 0, 0
// when its idle release is off.
func (m *Manager) IdleCounts() (releases, checks int64) {
	if m.idle == nil {
		return 0, 0
	}
	return m.idle.Counts()
}
