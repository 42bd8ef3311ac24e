package sshd

import (
	"fmt"

	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// Limits are the settings of a running Server that Reload can change.
// Users and their keys need no reload: authorized_keys is read at each login.
type Limits struct {
	MaxStartups          MaxStartups
	PerSourceMaxStartups int
	Penalties            *Penalties
	TrustedUserCAKeys    string
}

// Reload applies new limits (zero fields mean what they mean in Config)
// and re-reads the trusted CA file. Connections already admitted stay. On
// an error nothing changes.
func (s *Server) Reload(l Limits) error {
	cas, err := users.ReadCAKeys(l.TrustedUserCAKeys)
	if err != nil {
		return err
	}
	m, per, pen := admissionOf(Config{MaxStartups: l.MaxStartups, PerSourceMaxStartups: l.PerSourceMaxStartups, Penalties: l.Penalties})
	s.cas.Store(&cas)
	s.admit.reconfigure(m, per, pen)
	s.log.Info("front door reloaded", "max_startups", m.String(), "per_source_max_startups", per, "trusted_user_ca_keys", len(cas))
	return nil
}

// admissionOf fills in the defaults of c's admission settings.
func admissionOf(c Config) (MaxStartups, int, Penalties) {
	m := c.MaxStartups
	if m == (MaxStartups{}) {
		m = DefaultMaxStartups
	}
	per := c.PerSourceMaxStartups
	if per == 0 {
		per = defaultPerSource
	}
	pen := DefaultPenalties
	if c.Penalties != nil {
		pen = *c.Penalties
	}
	return m, per, pen
}

func (s *Server) loadCAs(path string) error {
	cas, err := users.ReadCAKeys(path)
	if err != nil {
		return fmt.Errorf("sshd: %w", err)
	}
	s.cas.Store(&cas)
	return nil
}

func (s *Server) trustedCAs() []gossh.PublicKey {
	if p := s.cas.Load(); p != nil {
		return *p
	}
	return nil
}

// defaultPerSource is PerSourceMaxStartups' default: below MaxStartups'
// start, so one address alone never pushes the others into early drop.
const defaultPerSource = 8
