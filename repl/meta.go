package repl

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// State is where a session is in its life.
type State string

const (
	StateLive       State = "live"       // held: a terminal is attached or a command runs
	StateDetached   State = "detached"   // interpreter loaded, nobody attached
	StateRestorable State = "restorable" // on disk only (after a host restart); rebuilt on first use
)

// meta is session.json: what survives the host. State is informational (what
// the session was at the last write); a starting host treats every session it
// finds as restorable.
type meta struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	State    State     `json:"state"`
}

const metaFile = "session.json"

// writeMeta replaces dir/session.json atomically.
func writeMeta(dir string, m meta, level syncLevel) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, metaFile), append(b, '\n'), level)
}

// readMeta reads dir/session.json and checks that it describes the session
// directory id.
func readMeta(dir, id string) (meta, error) {
	var m meta
	name := filepath.Join(dir, metaFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case m.ID != id:
		return m, fmt.Errorf("%s: id %q in directory %q", name, m.ID, id)
	case m.Owner == "":
		return m, errors.New(name + ": no owner")
	}
	return m, nil
}
