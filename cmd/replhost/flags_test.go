package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each serve flag can come from REPLHOST_<FLAG>; the command line wins.
func TestServeFlagsFromEnvironment(t *testing.T) {
	t.Setenv("REPLHOST_SESSION_TTL", "5m")
	t.Setenv("REPLHOST_LISTEN", "127.0.0.1:9999")
	t.Setenv("REPLHOST_ALLOW_PKG", "net, net/http")
	t.Setenv("REPLHOST_MEMORY", "1GiB")
	t.Setenv("REPLHOST_MAX_SESSIONS_PER_USER", "3")
	c, _, ok := parseServe([]string{"--listen", "127.0.0.1:1234"}, io.Discard, io.Discard)
	if !ok {
		t.Fatal("parse failed")
	}
	if c.listen != "127.0.0.1:1234" {
		t.Errorf("listen %q; want the command line's", c.listen)
	}
	if c.sessionTTL != 5*time.Minute || c.memory != 1<<30 || c.maxSessions != 3 {
		t.Errorf("ttl %v, memory %d, max %d; want 5m, 1GiB, 3", c.sessionTTL, c.memory, c.maxSessions)
	}
	if got := c.allowPkg.String(); got != "net,net/http" {
		t.Errorf("allow-pkg %q; want net,net/http", got)
	}
}

func TestBadEnvironmentValueIsOneClearError(t *testing.T) {
	t.Setenv("REPLHOST_SESSION_TTL", "soon")
	var errOut bytes.Buffer
	_, code, ok := parseServe(nil, io.Discard, &errOut)
	if ok || code != 2 || !strings.HasPrefix(errOut.String(), "replhost: REPLHOST_SESSION_TTL=") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("code %d, stderr %q; want 2 and one line naming REPLHOST_SESSION_TTL", code, errOut.String())
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "replhost.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A setting in the config file gives way to the same setting from the
// environment, and both to the command line; what neither sets comes from
// the file, the rest are the defaults.
func TestConfigFileEnvironmentAndFlagPrecedence(t *testing.T) {
	cfg := writeConfig(t, `
listen = "127.0.0.1:1111"
session-ttl = "7m"
memory = "2g"
max-sessions-per-user = 4
audit-code = true
allow-pkg = ["net", "net/http"]

[users.alice]
max-sessions = 2
memory = "1Gi"
disk = "5GiB"
`)
	t.Setenv("REPLHOST_SESSION_TTL", "9m")
	t.Setenv("REPLHOST_MEMORY", "3GiB")
	c, _, ok := parseServe([]string{"--config", cfg, "--memory", "768Mi"}, io.Discard, io.Discard)
	if !ok {
		t.Fatal("parse failed")
	}
	if c.memory != 768<<20 {
		t.Errorf("memory %v; want the flag's 768MiB over env and file", c.memory.String())
	}
	if c.sessionTTL != 9*time.Minute {
		t.Errorf("session-ttl %v; want the environment's 9m over the file's", c.sessionTTL)
	}
	if c.listen != "127.0.0.1:1111" || c.maxSessions != 4 || !c.auditCode || c.allowPkg.String() != "net,net/http" {
		t.Errorf("listen %q, max %d, audit-code %v, allow-pkg %q; want the file's", c.listen, c.maxSessions, c.auditCode, c.allowPkg.String())
	}
	if c.maxAuthTries != 6 || c.loginGrace != 30*time.Second || c.maxChannels != 10 || c.outputCap != 4<<20 || c.maxUpload != 1<<30 {
		t.Errorf("defaults changed: tries %d, grace %v, channels %d, output %d, upload %d", c.maxAuthTries, c.loginGrace, c.maxChannels, c.outputCap, c.maxUpload)
	}
	if got := c.limitsFor("alice"); got.memory != 1<<30 || got.disk != 5<<30 {
		t.Errorf("alice's memory %d, disk %d; want her overrides 1GiB, 5GiB", got.memory, got.disk)
	}
	if got := c.limitsFor("bob"); got.memory != 768<<20 || got.disk != 1<<30 {
		t.Errorf("bob's memory %d, disk %d; want the host's 768MiB, 1GiB", got.memory, got.disk)
	}
	if got := c.userMaxSessions(); got["alice"] != 2 || len(got) != 1 {
		t.Errorf("per-user session caps %v; want alice 2", got)
	}
}

func TestConfigFileErrorsAreOneLine(t *testing.T) {
	for name, text := range map[string]string{
		"unknown-setting": `lisen = "x"`,
		"bad-size":        `memory = "lots"`,
		"list-for-scalar": `listen = ["a", "b"]`,
		"bad-toml":        `listen = `,
		"unknown-user-setting": `[users.alice]
cpu = 3`,
	} {
		t.Run(name, func(t *testing.T) {
			var errOut bytes.Buffer
			_, code, ok := parseServe([]string{"--config", writeConfig(t, text)}, io.Discard, &errOut)
			if ok || code != 2 || !strings.HasPrefix(errOut.String(), "replhost: --config") || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("code %d, stderr %q; want 2 and one line about --config", code, errOut.String())
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "512Mi": 512 << 20, "512m": 512 << 20, "1GiB": 1 << 30,
		"2G": 2 << 30, "2g": 2 << 30, "1.5GiB": 3 << 29, "1048576": 1 << 20, "64 KiB": 64 << 10,
	} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, bad := range []string{"", "-1MiB", "lots", "0", "5 parsecs"} {
		var b byteSize
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	if b := byteSize(512 << 20); b.String() != "512MiB" {
		t.Errorf("String() = %q; want 512MiB", b.String())
	}
}

func TestFlagsInAnyPosition(t *testing.T) {
	fs := newFlagSet("t", "t", io.Discard, io.Discard)
	root := rootFlag(fs)
	admin := fs.Bool("admin", false, "")
	pos, err := parseArgs(fs, []string{"alice", "--root", "R", "key.pub", "--admin", "--", "--not-a-flag"})
	if err != nil || *root != "R" || !*admin || strings.Join(pos, " ") != "alice key.pub --not-a-flag" {
		t.Errorf("root %q admin %v pos %q err %v", *root, *admin, pos, err)
	}
}

// Every subcommand answers --help with its usage on stdout and status 0;
// version prints the module version and the Go release.
func TestHelpOfEveryCommandAndVersion(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"serve", "--help"}, {"help", "serve"}, {"user", "add", "--help"},
		{"user", "ls", "-h"}, {"user", "rm", "--help"}, {"sessions", "--help"}, {"kill", "--help"}, {"version", "--help"},
	} {
		out, err := exec.Command(replhostBin, args...).Output()
		if err != nil || !strings.HasPrefix(string(out), "usage:") {
			t.Errorf("replhost %q: %v, output %q; want usage on stdout, status 0", args, err, out)
		}
	}
	out, err := exec.Command(replhostBin, "serve", "--help").Output()
	if err != nil || !strings.Contains(string(out), "--audit-log") || !strings.Contains(string(out), "--config") {
		t.Errorf("serve --help lacks its flags: %q", out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(replhostBin, args...).Output()
		if err != nil || !strings.HasPrefix(string(out), "replhost ") || !strings.Contains(string(out), " go1.") {
			t.Errorf("replhost %q: %v, %q; want replhost VERSION ... goX", args, err, out)
		}
	}
}

// A build that names its commit (-X main.commit, for builds without VCS
// stamping) prints it.
func TestVersionPrintsTheCommitGiven(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "replhost")
	build := exec.Command("go", "build", "-ldflags", "-X main.commit=0123abcd", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v: %s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), " commit 0123abcd") {
		t.Errorf("--version: %v, %q; want the commit", err, out)
	}
}
