package sshd_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// The host offers AES-GCM and AES-CTR, not chacha20-poly1305 (x/crypto
// runs it without assembly): a client that only speaks chacha20 is
// refused at key exchange, one that also speaks AES-GCM gets in.
func TestCiphersOffered(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	for _, tc := range []struct {
		name    string
		ciphers []string
		ok      bool
	}{
		{"chacha20-only", []string{gossh.CipherChaCha20Poly1305}, false},
		{"chacha20-then-aes128-gcm", []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES128GCM}, true},
		{"aes256-ctr", []string{gossh.CipherAES256CTR}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := h.ClientConfig("alice")
			cfg.Ciphers = tc.ciphers
			c, err := gossh.Dial("tcp", h.Addr, cfg)
			if err == nil {
				c.Close()
			}
			if (err == nil) != tc.ok {
				t.Errorf("dial with %v: err %v; want success %v", tc.ciphers, err, tc.ok)
			}
		})
	}
}

// OpenSSH's ssh, which lists chacha20-poly1305 first, then AES-CTR, then
// AES-GCM, negotiates AES (CTR, its next choice) and not chacha20.
func TestOpenSSHNegotiatesAES(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH ssh")
	}
	h := testhost.Start(t, testhost.Options{})
	var args []string
	for _, a := range h.SSHArgs(t, "alice") {
		if a == "LogLevel=ERROR" { // -o: the first value given wins over -v
			a = "LogLevel=DEBUG1"
		}
		args = append(args, a)
	}
	args = append(args, h.HostName(), "eval 1")
	out, err := exec.Command("ssh", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh: %v\n%s", err, out)
	}
	// The MAC is OpenSSH's first choice that x/crypto has (no umac):
	// hmac-sha2-256-etm, which Go runs on the CPU's SHA instructions.
	if !strings.Contains(string(out), "client->server cipher: aes128-ctr MAC: hmac-sha2-256-etm@openssh.com") || strings.Contains(string(out), "cipher: chacha20") {
		t.Errorf("ssh -v did not report aes128-ctr with hmac-sha2-256-etm both ways:\n%s", out)
	}
}
