package repl

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/sandbox"
)

// EventKind names what happened, for the audit log and the metrics.
type EventKind string

// The events a host reports. Login events come from the SSH front door,
// the rest from the Manager and its sessions.
const (
	EventLogin           EventKind = "login"
	EventLoginRefused    EventKind = "login-refused"
	EventSessionCreated  EventKind = "session-created"
	EventSessionAttached EventKind = "session-attached"
	EventSessionDetached EventKind = "session-detached"
	EventSessionKilled   EventKind = "session-killed"
	EventSessionEvicted  EventKind = "session-evicted"
	EventSessionEnded    EventKind = "session-ended" // removed for another reason (a start that failed)
	EventSessionRestored EventKind = "session-restored"
	EventSessionCrashed  EventKind = "session-crashed"
	EventCell            EventKind = "cell"
	EventArtifactAdded   EventKind = "artifact-added"
	EventArtifactRemoved EventKind = "artifact-removed"
	EventUDFCall         EventKind = "udf-call"
)

// Event is one thing that happened on the host. Fields a kind does not use
// are zero.
type Event struct {
	Kind     EventKind
	User     string
	Session  string
	Remote   string        // logins: the client's address
	Key      string        // logins: the key's SHA256 fingerprint
	Reason   string        // refusals, crashes, session ends
	Outcome  string        // cells: ok, error, exit, interrupted, timeout, crashed (see CellOutcome)
	Duration time.Duration // cells, restores
	Code     string        // cells: the cell's source
	Cells    int           // restores: cells replayed
	Name     string        // artifacts
	Size     int64         // artifacts added
	SHA256   string        // artifacts added
	Records  int           // UDF calls: input records
	Failed   int           // UDF calls: records whose call failed
}

// Events receives the host's events; it must not block for long, it runs
// on the path of the event (a cell's, a login's).
type Events func(Event)

// Reasons a session ends, as the session-ended events and the log give them.
const (
	reasonKilled  = "session killed"
	reasonEvicted = "evicted after idle TTL"
)

// emit reports e if the host listens for events.
func (m *Manager) emit(e Event) {
	if m.cfg.Events != nil {
		m.cfg.Events(e)
	}
}

// emitEnd reports the end of session s.
func (m *Manager) emitEnd(s *Session, reason string) {
	kind := EventSessionEnded
	switch reason {
	case reasonKilled:
		kind = EventSessionKilled
	case reasonEvicted:
		kind = EventSessionEvicted
	}
	m.emit(Event{Kind: kind, User: s.owner, Session: s.id, Reason: reason})
}

// CellOutcome names the result of a cell: ok, error, exit, interrupted,
// timeout or crashed.
func CellOutcome(err error) string {
	var exit *sandbox.ExitError
	var crash *sandbox.CrashError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &crash):
		return "crashed"
	case errors.As(err, &exit):
		return "exit"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return "error"
}

// notifyArtifacts makes st report its changes as events of session s.
func (s *Session) notifyArtifacts(st *artifacts.Store) {
	if s.m.cfg.Events == nil {
		return
	}
	st.OnChange = func(added bool, info artifacts.Info) {
		e := Event{Kind: EventArtifactRemoved, User: s.owner, Session: s.id, Name: info.Name}
		if added {
			e.Kind, e.Size, e.SHA256 = EventArtifactAdded, info.Size, info.SHA256
		}
		s.m.emit(e)
	}
}

// lineCounter counts the records (lines, the last one maybe without its
// newline) read through it.
type lineCounter struct {
	r       io.Reader
	lines   int
	pending bool // bytes read since the last newline
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			c.lines++
			c.pending = false
		} else {
			c.pending = true
		}
	}
	return n, err
}

func (c *lineCounter) records() int {
	if c.pending {
		return c.lines + 1
	}
	return c.lines
}

// maxSessions is owner's session cap. Called with m.mu held.
func (m *Manager) maxSessions(owner string) int {
	if n, ok := m.cfg.UserMaxSessions[owner]; ok && n > 0 {
		return n
	}
	return m.cfg.MaxSessionsPerUser
}
