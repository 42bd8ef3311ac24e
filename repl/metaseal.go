package repl

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"os"
	"strconv"
)

// A session's code could rewrite its own session.json (before the worker
// was kept out of it, and should that ever fail again): give the session to
// another user, or drop "ephemeral" to outlive its script. So the fields
// that matter are sealed with an HMAC under a key the host keeps in
// ROOT/session.key, outside every session's reach; a session.json whose seal
// does not match is skipped at start-up, that session alone.
//
// Upgrade: the first start of a host that seals (no key yet) accepts the
// unsealed session.json files of the last release and seals them; from then
// on an unsealed one is refused like a forged one.

const (
	sealKeyFile = "session.key"
	sealKeySize = 32
)

// errBadSeal is a session.json whose seal does not match its fields.
var errBadSeal = errors.New("seal does not match: rewritten outside the host")

// loadSealKey reads ROOT/session.key, creating it if missing; fresh is true
// when it was created now (a host's first start with seals).
func loadSealKey(root string) (key []byte, fresh bool, err error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	key, err = safefs.Read(r, sealKeyFile, sealKeySize)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, sealKeySize)
		rand.Read(key)
		f, err := r.OpenFile(sealKeyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, false, fmt.Errorf("create %s: %w", sealKeyFile, err)
		}
		_, err = f.Write(key)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			r.Remove(sealKeyFile)
			return nil, false, fmt.Errorf("write %s: %w", sealKeyFile, err)
		}
		return key, true, syncRootDir(r, ".")
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", sealKeyFile, err)
	}
	if len(key) != sealKeySize {
		return nil, false, fmt.Errorf("%s: %d bytes; want %d", sealKeyFile, len(key), sealKeySize)
	}
	return key, false, nil
}

// seal is the HMAC of the fields of m a session must not change.
func (m meta) seal(key []byte) string {
	h := hmac.New(sha256.New, key)
	fields := []string{"replhost session 1", m.ID, m.Owner, m.Created.UTC().Format("2006-01-02T15:04:05.999999999Z"), strconv.FormatBool(m.Ephemeral)}
	if len(m.Env) > 0 {
		// Added after the first seals: a session without one seals as
		// before, so their session.json files stay valid.
		fields = append(append(fields, "env"), m.Env...)
	}
	for _, f := range fields {
		h.Write([]byte(strconv.Itoa(len(f))))
		h.Write([]byte{':'})
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sealed returns m with its seal set; a nil key seals nothing (tests that
// write a session as the last release did).
func (m meta) sealed(key []byte) meta {
	m.Seal = ""
	if key != nil {
		m.Seal = m.seal(key)
	}
	return m
}

// checkSeal reports whether m's seal matches.
func (m meta) checkSeal(key []byte) bool {
	want := m.seal(key)
	return hmac.Equal([]byte(m.Seal), []byte(want))
}
