package users

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Login is one public key offered for a user.
type Login struct {
	User string
	Key  gossh.PublicKey // a plain key, or a user certificate
	Addr netip.Addr      // the client's address, for from= and source-address
	Now  time.Time       // zero: time.Now()
	// TrustedCAs sign certificates valid for every user whose name is one of
	// the certificate's principals (sshd's TrustedUserCAKeys).
	TrustedCAs []gossh.PublicKey
}

// Grant is what an accepted key may do, and why it was accepted.
type Grant struct {
	Restrictions
	// CA is the fingerprint of the authority that signed the certificate;
	// "" for a plain key.
	CA string
	// Source is where the grant comes from: "authorized_keys:N" or
	// "trusted-user-ca-keys".
	Source string
}

// Refusal is why a key was not accepted; its text goes to the log, never
// to the client.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// Authorize decides l the way sshd decides an offered key. The user's
// authorized_keys is read at each call, so `user add` and `user rm` take
// effect at once. The error is a *Refusal.
func (d *Dir) Authorize(l Login) (Grant, error) {
	if l.Now.IsZero() {
		l.Now = time.Now()
	}
	if CheckName(l.User) != nil {
		return Grant{}, refuse("invalid user name")
	}
	text, err := readBounded(filepath.Join(d.Path(l.User), "authorized_keys"), maxAuthorizedKeys)
	if errors.Is(err, os.ErrNotExist) {
		return Grant{}, refuse("no such user")
	}
	if err != nil {
		return Grant{}, refuse("authorized_keys: %v", err)
	}
	entries := parseEntries(text, func(line int, err error) {
		d.logger().Warn("authorized_keys line skipped", "user", l.User, "line", line, "err", err)
	})
	if cert, ok := l.Key.(*gossh.Certificate); ok {
		return authorizeCert(l, cert, entries)
	}
	want := l.Key.Marshal()
	var last error = refuse("key not in authorized_keys")
	for _, e := range entries {
		if e.CertAuthority || !bytes.Equal(e.Key.Marshal(), want) {
			continue
		}
		if err := e.admits(l); err != nil {
			last = err
			continue
		}
		return Grant{Restrictions: e.Restrictions, Source: fmt.Sprintf("authorized_keys:%d", e.Line)}, nil
	}
	return Grant{}, last
}

// admits checks a line's from= and expiry-time=.
func (e Entry) admits(l Login) error {
	if !e.Expiry.IsZero() && !l.Now.Before(e.Expiry) {
		return refuse("authorized_keys line %d expired at %s", e.Line, e.Expiry.UTC().Format(time.RFC3339))
	}
	if e.From != nil && !MatchFrom(e.From, l.Addr) {
		return refuse("authorized_keys line %d: from=%q does not match %s", e.Line, strings.Join(e.From, ","), l.Addr)
	}
	return nil
}

// authorizeCert accepts a user certificate signed by a cert-authority line
// whose principals (the user name when none are listed) the certificate
// names, or by a host-wide trusted CA for a principal equal to the user
// name. Validity, signature and critical options are x/crypto's CertChecker's.
func authorizeCert(l Login, cert *gossh.Certificate, entries []Entry) (Grant, error) {
	if cert.CertType != gossh.UserCert {
		return Grant{}, refuse("certificate is not a user certificate")
	}
	ca := cert.SignatureKey.Marshal()
	checker := &gossh.CertChecker{
		Clock:                    func() time.Time { return l.Now },
		SupportedCriticalOptions: []string{"force-command", "source-address"},
	}
	var last error = refuse("certificate not signed by a trusted authority")
	for _, e := range entries {
		if !e.CertAuthority || !bytes.Equal(e.Key.Marshal(), ca) {
			continue
		}
		if err := e.admits(l); err != nil {
			last = err
			continue
		}
		principals := e.Principals
		if principals == nil {
			principals = []string{l.User}
		}
		if err := checkAnyPrincipal(checker, cert, principals); err != nil {
			last = err
			continue
		}
		g, err := certGrant(l, cert, e.Restrictions)
		if err != nil {
			last = err
			continue
		}
		g.Source = fmt.Sprintf("authorized_keys:%d", e.Line)
		return g, nil
	}
	for _, k := range l.TrustedCAs {
		if !bytes.Equal(k.Marshal(), ca) {
			continue
		}
		if err := checker.CheckCert(l.User, cert); err != nil {
			return Grant{}, refuse("certificate: %v", err)
		}
		g, err := certGrant(l, cert, Restrictions{})
		g.Source = "trusted-user-ca-keys"
		return g, err
	}
	return Grant{}, last
}

func checkAnyPrincipal(c *gossh.CertChecker, cert *gossh.Certificate, principals []string) error {
	var err error
	for _, p := range principals {
		if err = c.CheckCert(p, cert); err == nil {
			return nil
		}
	}
	return refuse("certificate: %v", err)
}

// certGrant narrows r by what the certificate permits (its extensions) and
// forces (force-command, source-address), as sshd does.
func certGrant(l Login, cert *gossh.Certificate, r Restrictions) (Grant, error) {
	has := func(ext string) bool { _, ok := cert.Extensions[ext]; return ok }
	r.NoPTY = r.NoPTY || !has("permit-pty")
	r.NoPortForwarding = r.NoPortForwarding || !has("permit-port-forwarding")
	r.NoAgent = r.NoAgent || !has("permit-agent-forwarding")
	r.NoX11 = r.NoX11 || !has("permit-X11-forwarding")
	r.NoUserRC = r.NoUserRC || !has("permit-user-rc")
	if fc, ok := cert.CriticalOptions["force-command"]; ok {
		if r.Command != "" && r.Command != fc {
			return Grant{}, refuse("certificate and key options both force a command")
		}
		r.Command = fc
	}
	if src, ok := cert.CriticalOptions["source-address"]; ok && !inSourceAddress(src, l.Addr) {
		return Grant{}, refuse("certificate source-address %q does not match %s", src, l.Addr)
	}
	return Grant{Restrictions: r, CA: gossh.FingerprintSHA256(cert.SignatureKey)}, nil
}

// inSourceAddress matches the comma-separated CIDR list of a certificate's
// source-address option (bare addresses allowed).
func inSourceAddress(list string, addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil && p.Contains(addr) {
			return true
		}
		if a, err := netip.ParseAddr(s); err == nil && a.Unmap() == addr {
			return true
		}
	}
	return false
}

// readBounded reads a regular file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if st.Size() > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// ReadCAKeys reads a TrustedUserCAKeys file: one public key per line, '#'
// comments. An empty path gives none.
func ReadCAKeys(path string) ([]gossh.PublicKey, error) {
	if path == "" {
		return nil, nil
	}
	text, err := readBounded(path, maxAuthorizedKeys)
	if err != nil {
		return nil, fmt.Errorf("trusted user CA keys: %w", err)
	}
	var keys []gossh.PublicKey
	for n, raw := range bytes.Split(text, []byte("\n")) {
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("trusted user CA keys %s line %d: %w", path, n+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
