package users

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestMatchFrom(t *testing.T) {
	tests := []struct {
		name, pats, addr string
		want             bool
	}{
		{"exact", "127.0.0.1", "127.0.0.1", true},
		{"other", "127.0.0.1", "127.0.0.2", false},
		{"star", "127.0.0.*", "127.0.0.9", true},
		{"question", "10.0.0.?", "10.0.0.12", false},
		{"cidr", "10.0.0.0/8", "10.9.8.7", true},
		{"cidr-miss", "10.0.0.0/8", "11.0.0.1", false},
		{"negation-wins", "127.0.0.0/8,!127.0.0.2", "127.0.0.2", false},
		{"negation-other", "127.0.0.0/8,!127.0.0.2", "127.0.0.3", true},
		{"only-negation", "!127.0.0.2", "127.0.0.3", false},
		{"mapped-v4", "192.0.2.0/24", "::ffff:192.0.2.1", true},
		{"v6-cidr", "2001:db8::/32", "2001:db8::1", true},
		{"many-stars", "*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?x", "::ffff:127.0.0.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchFrom(strings.Split(tt.pats, ","), netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("MatchFrom(%q, %s) = %v; want %v", tt.pats, tt.addr, got, tt.want)
			}
		})
	}
}

func TestParseEntryOptions(t *testing.T) {
	key := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(newKey(t).PublicKey())))
	tests := []struct {
		name, opts string
		want       Restrictions
		err        string
	}{
		{"none", "", Restrictions{}, ""},
		{"restrict", "restrict", Restrictions{NoPTY: true, NoPortForwarding: true, NoAgent: true, NoX11: true, NoUserRC: true}, ""},
		{"restrict-pty", "restrict,pty", Restrictions{NoPortForwarding: true, NoAgent: true, NoX11: true, NoUserRC: true}, ""},
		{"no-pty-case", "No-PTY", Restrictions{NoPTY: true}, ""},
		{"command", `command="eval 1+1"`, Restrictions{Command: "eval 1+1"}, ""},
		{"command-quote", `command="echo \"x\""`, Restrictions{Command: `echo "x"`}, ""},
		{"environment", `environment="A=B"`, Restrictions{}, "environment= is not supported"},
		{"unknown", "tunnel=\"1\"", Restrictions{}, "unsupported option"},
		{"flag-with-value", "no-pty=1", Restrictions{}, "takes no value"},
		{"bad-cidr", `from="10.0.0.0/99"`, Restrictions{}, "from="},
		{"bad-expiry", `expiry-time="2020"`, Restrictions{}, "expiry-time"},
		{"principals-without-ca", `principals="a"`, Restrictions{}, "without cert-authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := key
			if tt.opts != "" {
				line = tt.opts + " " + key
			}
			e, err := parseEntry([]byte(line))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Restrictions != tt.want {
				t.Errorf("got %+v; want %+v", e.Restrictions, tt.want)
			}
		})
	}
}

func TestParseExpiry(t *testing.T) {
	got, err := parseExpiry("20300102030405Z")
	if err != nil || !got.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("got %v, %v", got, err)
	}
}

// A line with an option the host does not know is skipped, never read as
// the bare key.
func TestUnknownOptionSkipsTheLine(t *testing.T) {
	d := Open(t.TempDir())
	k := newKey(t)
	if _, err := d.Add("alice", AuthorizedLine(k, "")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Add("alice", append([]byte("tunnel=\"0\" "), AuthorizedLine(k, "")...)); err == nil {
		t.Error("user add accepted an unknown option")
	}
	writeAtomic(d.Path("alice")+"/authorized_keys", append([]byte("tunnel=\"0\" "), AuthorizedLine(k, "")...))
	if authorized(d, "alice", k.PublicKey()) {
		t.Error("a line with an unknown option let the key in")
	}
}
