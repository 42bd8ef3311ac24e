package main

import (
	"io"
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
	fs, c := serveFlags(io.Discard)
	if err := fs.Parse([]string{"--listen", "127.0.0.1:1234"}); err != nil {
		t.Fatal(err)
	}
	if err := applyEnv(fs); err != nil {
		t.Fatal(err)
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
	fs, _ := serveFlags(io.Discard)
	fs.Parse(nil)
	err := applyEnv(fs)
	if err == nil || err.Error()[:len("REPLHOST_SESSION_TTL")] != "REPLHOST_SESSION_TTL" {
		t.Errorf("err = %v; want one naming REPLHOST_SESSION_TTL", err)
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "1GiB": 1 << 30, "2G": 2 << 30, "1048576": 1 << 20, "10MB": 10e6} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, bad := range []string{"", "-1MiB", "lots", "0"} {
		var b byteSize
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}
