package sshd_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sshd"
)

// keygen makes an ed25519 key pair with ssh-keygen and returns its path.
func keygen(tb testing.TB, dir, name string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path).CombinedOutput(); err != nil {
		tb.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	return path
}

// certify signs key.pub with ca as ssh-keygen -s does; the certificate
// lands beside the key, where ssh finds it.
func certify(tb testing.TB, ca, key string, args ...string) {
	tb.Helper()
	all := append([]string{"-q", "-s", ca, "-I", "test-cert"}, args...)
	if out, err := exec.Command("ssh-keygen", append(all, key+".pub")...).CombinedOutput(); err != nil {
		tb.Fatalf("ssh-keygen -s: %v\n%s", err, out)
	}
}

func pub(tb testing.TB, key string) string {
	tb.Helper()
	b, err := os.ReadFile(key + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// setKeys replaces alice's authorized_keys.
func setKeys(tb testing.TB, h *testhost.Host, lines ...string) {
	tb.Helper()
	path := filepath.Join(h.Root, "users", "alice", "authorized_keys")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
}

type sshResult struct {
	stdout, stderr string
	code           int
}

// openssh runs OpenSSH's ssh as alice with identity key (its certificate
// beside it is used too) and the given options and remote command.
func openssh(tb testing.TB, h *testhost.Host, key string, args ...string) sshResult {
	tb.Helper()
	base := h.SSHArgs(tb, "alice")
	for i := range base {
		if base[i] == "-i" {
			base[i+1] = key
		}
	}
	cmd := exec.Command("ssh", append(append(base, args[:len(args)-1]...), h.HostName(), args[len(args)-1])...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := sshResult{out.String(), errOut.String(), 0}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestAuthorizedKeysOptionsWithOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH client")
	}
	log := &logBuffer{}
	h := testhost.Start(t, testhost.Options{LogTo: log, SSH: sshd.Config{Penalties: &sshd.Penalties{}}})
	dir := t.TempDir()
	key := keygen(t, dir, "alice")
	k := pub(t, key)
	tests := []struct {
		name   string
		line   string
		args   []string // ssh options, then the remote command
		stdout string   // "" with code 255: refused
		stderr string   // must appear on stderr when set
	}{
		{"plain", k, []string{"eval 1"}, "1\n", ""},
		{"from-other-address", `from="127.0.0.2" ` + k, []string{"eval 1"}, "", ""},
		{"from-wildcard", `from="127.0.0.*" ` + k, []string{"eval 1"}, "1\n", ""},
		{"from-negated", `from="127.0.0.0/8,!127.0.0.1" ` + k, []string{"eval 1"}, "", ""},
		{"from-cidr", `from="10.0.0.0/8,127.0.0.0/8" ` + k, []string{"eval 1"}, "1\n", ""},
		{"expired", `expiry-time="20200101" ` + k, []string{"eval 1"}, "", ""},
		{"not-yet-expired", `expiry-time="20991231" ` + k, []string{"eval 1"}, "1\n", ""},
		{"command", `command="eval 40+2" ` + k, []string{"eval 1"}, "42\n", ""},
		// ssh -tt gives up when its pty is refused (a forced tty is fatal).
		{"no-pty", `no-pty ` + k, []string{"-tt", "eval 1"}, "", "PTY allocation request failed"},
		{"restrict", `restrict ` + k, []string{"-tt", "eval 1"}, "", "PTY allocation request failed"},
		{"no-pty-without-tty", `no-pty ` + k, []string{"-T", "eval 1"}, "1\n", ""},
		{"environment-skips-the-line", `environment="A=B" ` + k, []string{"eval 1"}, "", ""},
		{"unknown-option-skips-the-line", `tunnel="0" ` + k, []string{"eval 1"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setKeys(t, h, tt.line)
			r := openssh(t, h, key, tt.args...)
			if tt.stdout == "" && tt.stderr != "" {
				if !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("got %+v; want stderr with %q", r, tt.stderr)
				}
				return
			}
			if tt.stdout == "" {
				if r.code != 255 || !strings.Contains(r.stderr, "Permission denied") {
					t.Errorf("got %+v; want the login refused", r)
				}
				return
			}
			if r.code != 0 || strings.ReplaceAll(r.stdout, "\r\n", "\n") != tt.stdout || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("got %+v; want stdout %q, stderr with %q", r, tt.stdout, tt.stderr)
			}
		})
	}
	if len(log.lines("authorized_keys line skipped", "user=alice", "environment")) == 0 ||
		len(log.lines("authorized_keys line skipped", "user=alice", "tunnel")) == 0 {
		t.Errorf("skipped lines were not logged:\n%s", log)
	}
	// restrict,pty gives the pty back.
	setKeys(t, h, `restrict,pty `+k)
	if r := openssh(t, h, key, "-tt", "eval 1"); r.code != 0 || strings.Contains(r.stderr, "PTY allocation request failed") {
		t.Errorf("restrict,pty: %+v", r)
	}
}

// cert-authority lines accept certificates their CA signed, for the
// user's name or the listed principals, in their validity window and with
// their critical options; the CA's own key is no login.
func TestCertificatesWithOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH client")
	}
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{Penalties: &sshd.Penalties{}}})
	dir := t.TempDir()
	ca := keygen(t, dir, "ca")
	mk := func(name string, args ...string) string {
		k := keygen(t, dir, name)
		certify(t, ca, k, args...)
		return k
	}
	alice := mk("alice", "-n", "alice", "-V", "-1h:+1h")
	bob := mk("bob", "-n", "bob")
	ops := mk("ops", "-n", "ops")
	expired := mk("expired", "-n", "alice", "-V", "-2d:-1d")
	forced := mk("forced", "-n", "alice", "-O", "force-command=eval 6*7")
	elsewhere := mk("elsewhere", "-n", "alice", "-O", "source-address=10.0.0.0/8")
	noPty := mk("nopty", "-n", "alice", "-O", "no-pty")
	tests := []struct {
		name, line, key string
		args            []string
		stdout          string // "": refused
	}{
		{"principal-is-user", "cert-authority " + pub(t, ca), alice, []string{"eval 1"}, "1\n"},
		{"ca-key-itself", "cert-authority " + pub(t, ca), ca, []string{"eval 1"}, ""},
		{"other-principal", "cert-authority " + pub(t, ca), bob, []string{"eval 1"}, ""},
		{"principals-listed", `cert-authority,principals="ops,deploy" ` + pub(t, ca), ops, []string{"eval 1"}, "1\n"},
		{"principals-not-user", `cert-authority,principals="ops" ` + pub(t, ca), alice, []string{"eval 1"}, ""},
		{"expired", "cert-authority " + pub(t, ca), expired, []string{"eval 1"}, ""},
		{"force-command", "cert-authority " + pub(t, ca), forced, []string{"eval 1"}, "42\n"},
		{"source-address", "cert-authority " + pub(t, ca), elsewhere, []string{"eval 1"}, ""},
		{"from-on-ca-line", `cert-authority,from="10.0.0.0/8" ` + pub(t, ca), alice, []string{"eval 1"}, ""},
		{"plain-ca-line-is-not-a-ca", pub(t, ca), alice, []string{"eval 1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setKeys(t, h, tt.line)
			r := openssh(t, h, tt.key, tt.args...)
			if tt.stdout == "" {
				if r.code != 255 || !strings.Contains(r.stderr, "Permission denied") {
					t.Errorf("got %+v; want the login refused", r)
				}
				return
			}
			if r.code != 0 || r.stdout != tt.stdout {
				t.Errorf("got %+v; want %q", r, tt.stdout)
			}
		})
	}
	setKeys(t, h, "cert-authority "+pub(t, ca))
	if r := openssh(t, h, noPty, "-tt", "eval 1"); !strings.Contains(r.stderr, "PTY allocation request failed") {
		t.Errorf("a certificate without permit-pty got a pty: %+v", r)
	}
}

// --trusted-user-ca-keys: the CA's certificates log in the user named as
// a principal, whatever the user's authorized_keys holds.
func TestTrustedUserCAKeysWithOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH client")
	}
	dir := t.TempDir()
	ca := keygen(t, dir, "ca")
	caFile := filepath.Join(dir, "trusted")
	if err := os.WriteFile(caFile, []byte("# the team CA\n"+pub(t, ca)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{TrustedUserCAKeys: caFile, Penalties: &sshd.Penalties{}}})
	alice := keygen(t, dir, "alice")
	certify(t, ca, alice, "-n", "alice")
	bob := keygen(t, dir, "bob")
	certify(t, ca, bob, "-n", "bob")
	if r := openssh(t, h, alice, "eval 1"); r.code != 0 || r.stdout != "1\n" {
		t.Errorf("alice's certificate: %+v", r)
	}
	if r := openssh(t, h, bob, "eval 1"); r.code != 255 {
		t.Errorf("bob's certificate logged in as alice: %+v", r)
	}
	if r := openssh(t, h, ca, "eval 1"); r.code != 255 {
		t.Errorf("the CA's own key logged in: %+v", r)
	}
}
