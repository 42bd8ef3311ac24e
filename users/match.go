package users

import (
	"errors"
	"net/netip"
	"strings"
)

// checkPatterns refuses a from= list with a malformed CIDR block, so that a
// typo skips the line instead of never matching silently.
func checkPatterns(pats []string) error {
	for _, p := range pats {
		p = strings.TrimPrefix(p, "!")
		if p == "" {
			return errors.New("empty pattern")
		}
		if strings.Contains(p, "/") {
			if _, err := netip.ParsePrefix(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// MatchFrom reports whether addr matches a from= pattern list as sshd
// matches it without DNS (UseDNS no, its default): a negated pattern that
// matches refuses, else any matching pattern admits. Patterns are CIDR
// blocks, or addresses with the wildcards * and ?.
func MatchFrom(pats []string, addr netip.Addr) bool {
	addr = addr.Unmap()
	text := addr.String()
	matched := false
	for _, p := range pats {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		var m bool
		if strings.Contains(p, "/") {
			pre, err := netip.ParsePrefix(p)
			m = err == nil && pre.Contains(addr)
		} else {
			m = wildcard(strings.ToLower(p), strings.ToLower(text))
		}
		if m && neg {
			return false
		}
		matched = matched || m
	}
	return matched
}

// wildcard matches s against pat, where * is any run and ? any one byte
// (sshd's match_pattern; path.Match would treat [ and \ specially). The
// classic single-backtrack scan: linear in len(pat)*len(s), whatever the
// stars.
func wildcard(pat, s string) bool {
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == s[i]):
			p++
			i++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}
