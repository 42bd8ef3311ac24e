package repl

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"os"
	"time"

	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/users"
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
// finds as restorable, except an ephemeral one (a script's or a one-shot
// eval's), which it removes.
type meta struct {
	ID        string    `json:"id"`
	Owner     string    `json:"owner"`
	Created   time.Time `json:"created"`
	LastUsed  time.Time `json:"last_used"`
	State     State     `json:"state"`
	Ephemeral bool      `json:"ephemeral,omitempty"`
	// Env is the environment of the connection that created the session
	// (WithEnv): a restore after a host restart gives it back, so that
	// replayed cells that read os.Getenv compute what they did.
	Env  []string `json:"env,omitempty"`
	Seal string   `json:"seal,omitempty"` // see metaseal.go
}

const (
	metaFile = "session.json"
	// maxMeta bounds session.json: a few hundred bytes as the host writes
	// it, plus the environment (sandbox.MaxEnvBytes, JSON-escaped).
	maxMeta = 8 * sandbox.MaxEnvBytes
)

// writeMeta replaces dir/session.json atomically, through an os.Root of dir,
// sealed with key.
func writeMeta(dir string, m meta, key []byte, level syncLevel) error {
	b, err := json.MarshalIndent(m.sealed(key), "", "  ")
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return writeRootAtomic(root, metaFile, append(b, '\n'), level)
}

// readMeta reads dir/session.json as hostile input (a regular file, at most
// maxMeta bytes, through an os.Root of dir) and checks that it describes the
// session directory id, that its owner passes checkOwner (nil:
// users.CheckName) and that its seal matches key; with legacy, a file
// without a seal (the last release's) passes too.
func readMeta(dir, id string, checkOwner func(string) error, key []byte, legacy bool) (meta, error) {
	var m meta
	root, err := os.OpenRoot(dir)
	if err != nil {
		return m, err
	}
	defer root.Close()
	b, err := safefs.Read(root, metaFile, maxMeta)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", metaFile, err)
	}
	if checkOwner == nil {
		checkOwner = users.CheckName
	}
	switch {
	case m.ID != id:
		return m, fmt.Errorf("%s: id %q in directory %q", metaFile, m.ID, id)
	case m.Owner == "":
		return m, errors.New(metaFile + ": no owner")
	}
	if err := checkOwner(m.Owner); err != nil {
		return m, fmt.Errorf("%s: owner %q: %w", metaFile, m.Owner, err)
	}
	if !(legacy && m.Seal == "") && !m.checkSeal(key) {
		return m, fmt.Errorf("%s: %w", metaFile, errBadSeal)
	}
	if err := sandbox.CheckEnv(m.Env); err != nil {
		return m, fmt.Errorf("%s: %w", metaFile, err)
	}
	return m, nil
}
