package repl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// State is where a session is in its life.
type State string

const (
	StateLive       State = "live"       // attached: someone is typing or a command runs
	StateDetached   State = "detached"   // interpreter loaded, nobody attached
	StateRestorable State = "restorable" // on disk only (after a host restart); rebuilt on first use
)

// meta is session.json: what survives the host.
type meta struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	State    State     `json:"state"`
}

const metaFile = "session.json"

func writeMeta(dir string, m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, metaFile), append(b, '\n'), true)
}

func readMeta(dir string) (meta, error) {
	var m meta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, metaFile), err)
	}
	return m, nil
}
