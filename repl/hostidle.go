package repl

// cellBegin and cellEnd bracket a cell's evaluation for the host's idle
// release: a host that served a burst of cells holds up to its heap goal in
// free pages (~2 MiB after a session's first 1,000 cells) until then.
func (m *Manager) cellBegin() {
	if m.idle != nil {
		m.idle.Begin()
	}
}

func (m *Manager) cellEnd() {
	if m.idle != nil {
		m.idle.End()
	}
}
