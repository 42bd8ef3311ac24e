package repl

import (
	"fmt"
	"sort"
	"time"
)

// ListAll returns every session of the host, of every user, oldest first:
// for operators (the admin socket, admin users).
func (m *Manager) ListAll() []Info {
	m.mu.Lock()
	out := make([]Info, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s.Info())
	}
	m.mu.Unlock()
	sortInfos(out)
	return out
}

// KillAny kills session id whoever owns it: for operators.
func (m *Manager) KillAny(id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	m.mu.Unlock()
	if !ok {
		return ErrNoSuchSession
	}
	return m.Kill(s.owner, id)
}

// KillUser kills every session of owner (the user was removed) and returns
// how many it killed.
func (m *Manager) KillUser(owner string) int {
	n := 0
	for _, info := range m.List(owner) {
		if m.Kill(owner, info.ID) == nil {
			n++
		}
	}
	return n
}

func sortInfos(out []Info) {
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
}

// FormatInfo is a session's line in an operator's listing: uuid, owner,
// state, created, last used.
func FormatInfo(info Info) string {
	return fmt.Sprintf("%s %s %s %s %s", info.ID, info.Owner, info.State,
		info.Created.UTC().Format(time.RFC3339), info.LastUsed.UTC().Format(time.RFC3339))
}

// SetSessionLimits changes the session caps (a reloaded config file):
// perUser for everyone (zero keeps it), users' own overrides in place of
// the old ones. Sessions over a lowered cap stay; new ones are refused.
func (m *Manager) SetSessionLimits(perUser int, users map[string]int) {
	m.mu.Lock() // maxSessions reads them under it
	defer m.mu.Unlock()
	if perUser > 0 {
		m.cfg.MaxSessionsPerUser = perUser
	}
	m.cfg.UserMaxSessions = users
}
