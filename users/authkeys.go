package users

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// maxAuthorizedKeys bounds the authorized_keys file read at each login: it
// is the user's file, but the host reads it before anyone has proved who
// they are.
const maxAuthorizedKeys = 1 << 20

// Entry is one line of an authorized_keys file with its options, as
// sshd(8) reads them ("AUTHORIZED_KEYS FILE FORMAT").
type Entry struct {
	Key  gossh.PublicKey
	Line int // 1-based, for warnings

	// CertAuthority: Key is a CA; it authenticates user certificates it
	// signed, never itself.
	CertAuthority bool
	Principals    []string // principals= of a cert-authority line; nil: the user name
	From          []string // from= patterns; nil: any source
	Expiry        time.Time
	Restrictions
}

// Restrictions are what an authorized key (or certificate) leaves the
// client. The zero value allows everything, as a line without options.
type Restrictions struct {
	Command          string // forced command (command=, or a certificate's force-command); "" none
	NoPTY            bool
	NoPortForwarding bool
	NoAgent          bool
	NoX11            bool
	NoUserRC         bool
}

// parseEntries reads authorized_keys text. A line that does not parse, or
// that carries an option this host does not implement, is skipped and
// reported through warn: skipping it can only refuse a login, while
// ignoring the option would widen what the key may do.
func parseEntries(text []byte, warn func(line int, err error)) []Entry {
	var out []Entry
	for n, raw := range bytes.Split(text, []byte("\n")) {
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			warn(n+1, err)
			continue
		}
		e.Line = n + 1
		out = append(out, e)
	}
	return out
}

func parseEntry(line []byte) (Entry, error) {
	key, _, options, rest, err := gossh.ParseAuthorizedKey(line)
	if err != nil {
		return Entry{}, fmt.Errorf("not a public key: %w", err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return Entry{}, fmt.Errorf("more than one key on the line")
	}
	e := Entry{Key: key}
	for _, opt := range options {
		if err := e.apply(opt); err != nil {
			return Entry{}, err
		}
	}
	if e.Principals != nil && !e.CertAuthority {
		return Entry{}, fmt.Errorf("principals= without cert-authority")
	}
	if _, isCert := key.(*gossh.Certificate); isCert {
		return Entry{}, fmt.Errorf("a certificate is not an authorized key; list its CA with cert-authority")
	}
	return e, nil
}

// apply sets one option. Names are case-insensitive, as in sshd.
func (e *Entry) apply(opt string) error {
	name, value, hasValue := strings.Cut(opt, "=")
	if hasValue {
		v, err := unquote(value)
		if err != nil {
			return fmt.Errorf("option %s: %w", name, err)
		}
		value = v
	}
	flag := func(set func()) error {
		if hasValue {
			return fmt.Errorf("option %s takes no value", name)
		}
		set()
		return nil
	}
	r := &e.Restrictions
	switch strings.ToLower(name) {
	case "restrict":
		return flag(func() { r.NoPTY, r.NoPortForwarding, r.NoAgent, r.NoX11, r.NoUserRC = true, true, true, true, true })
	case "no-pty":
		return flag(func() { r.NoPTY = true })
	case "pty":
		return flag(func() { r.NoPTY = false })
	case "no-port-forwarding":
		return flag(func() { r.NoPortForwarding = true })
	case "port-forwarding":
		return flag(func() { r.NoPortForwarding = false })
	case "no-agent-forwarding":
		return flag(func() { r.NoAgent = true })
	case "agent-forwarding":
		return flag(func() { r.NoAgent = false })
	case "no-x11-forwarding":
		return flag(func() { r.NoX11 = true })
	case "x11-forwarding":
		return flag(func() { r.NoX11 = false })
	case "no-user-rc":
		return flag(func() { r.NoUserRC = true })
	case "user-rc":
		return flag(func() { r.NoUserRC = false })
	case "cert-authority":
		return flag(func() { e.CertAuthority = true })
	case "command":
		if !hasValue {
			return fmt.Errorf("command needs a value")
		}
		r.Command = value
	case "from":
		if !hasValue || value == "" {
			return fmt.Errorf("from needs patterns")
		}
		pats := strings.Split(value, ",")
		if err := checkPatterns(pats); err != nil {
			return fmt.Errorf("from=%q: %w", value, err)
		}
		e.From = pats
	case "expiry-time":
		t, err := parseExpiry(value)
		if err != nil {
			return fmt.Errorf("expiry-time=%q: %w", value, err)
		}
		e.Expiry = t
	case "principals":
		if !hasValue || value == "" {
			return fmt.Errorf("principals needs names")
		}
		e.Principals = strings.Split(value, ",")
	case "permitopen", "permitlisten":
		// Narrow forwarding, which this host refuses anyway.
		if !hasValue {
			return fmt.Errorf("option %s needs a value", name)
		}
	case "environment":
		return fmt.Errorf("environment= is not supported (sshd's PermitUserEnvironment no)")
	default:
		return fmt.Errorf("unsupported option %q", name)
	}
	return nil
}

// unquote strips the double quotes x/crypto leaves on an option value.
func unquote(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		return v, nil
	}
	if len(v) < 2 || !strings.HasSuffix(v, `"`) {
		return "", fmt.Errorf("unterminated quote")
	}
	return strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`), nil
}

// parseExpiry reads sshd's YYYYMMDD[HHMM[SS]] in local time, or UTC with a
// trailing Z.
func parseExpiry(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	layout, ok := layouts[len(v)]
	if !ok {
		return time.Time{}, fmt.Errorf("want YYYYMMDD[HHMM[SS]][Z]")
	}
	return time.ParseInLocation(layout, v, loc)
}
