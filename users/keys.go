package users

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// LoadOrCreateKey reads the ed25519 private key at path (OpenSSH format), or
// creates it (0600) when missing. It returns the signer and whether it was
// created now.
func LoadOrCreateKey(path, comment string) (gossh.Signer, bool, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		s, err := gossh.ParsePrivateKey(data)
		if err != nil {
			return nil, false, fmt.Errorf("read key %s: %w", path, err)
		}
		return s, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, err
	}
	block, err := gossh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, false, err
	}
	if err := writeAtomic(path, pem.EncodeToMemory(block)); err != nil {
		return nil, false, fmt.Errorf("write key %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, false, err
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// AuthorizedLine is the public key of s as an authorized_keys line.
func AuthorizedLine(s gossh.Signer, comment string) []byte {
	line := gossh.MarshalAuthorizedKey(s.PublicKey())
	if comment != "" {
		line = append(line[:len(line)-1], []byte(" "+comment+"\n")...)
	}
	return line
}
