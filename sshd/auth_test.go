package sshd_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sshd"
	gossh "golang.org/x/crypto/ssh"
)

func TestAuthRefusals(t *testing.T) {
	// Penalties off: seven refusals from one address would earn one.
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{Penalties: &sshd.Penalties{}}})
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	stranger, _ := gossh.NewSignerFromKey(priv)
	tests := []struct {
		name string
		cfg  *gossh.ClientConfig
	}{
		{"wrong-key", withAuth(h.ClientConfig("alice"), gossh.PublicKeys(stranger))},
		{"another-users-key", withAuth(h.ClientConfig("alice"), gossh.PublicKeys(h.Signer("bob")))},
		{"unknown-user", withUser(h.ClientConfig("alice"), "mallory")},
		{"password", withAuth(h.ClientConfig("alice"), gossh.Password("alice"))},
		{"keyboard-interactive", withAuth(h.ClientConfig("alice"), gossh.KeyboardInteractive(
			func(string, string, []string, []bool) ([]string, error) { return nil, nil }))},
		{"none", withAuth(h.ClientConfig("alice"))},
		{"path-traversal-user", withUser(h.ClientConfig("alice"), "../alice")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := gossh.Dial("tcp", h.Addr, tt.cfg)
			if err == nil {
				c.Close()
				t.Fatal("login accepted; want refused")
			}
			if !strings.Contains(err.Error(), "unable to authenticate") {
				t.Errorf("err = %v; want an authentication failure", err)
			}
		})
	}
	// The right key still works after all that.
	if r := h.Run(t, "alice", "eval 1", ""); r.Stdout != "1\n" {
		t.Errorf("alice after refusals: %+v", r)
	}
}

func withAuth(c *gossh.ClientConfig, auth ...gossh.AuthMethod) *gossh.ClientConfig {
	c.Auth = auth
	return c
}

func withUser(c *gossh.ClientConfig, user string) *gossh.ClientConfig {
	c.User = user
	return c
}
