package gotestdir

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// host is a `replhost serve` process of the real binary, in process
// isolation, with the user its first start creates.
type host struct {
	cmd    *exec.Cmd
	addr   string
	config *gossh.ClientConfig
	log    *os.File
}

// binary is a program the tests build once per test binary, into a
// folder TestMain removes.
type binary struct {
	pkg, name string
	once      sync.Once
	path      string
	err       error
}

var (
	replhostBin = &binary{pkg: "github.com/replhost/replhost/cmd/replhost", name: "replhost"}
	// plainBin is the yaegi CLI of the version go.mod requires: what a
	// user would run instead of replhost.
	plainBin = &binary{pkg: "github.com/traefik/yaegi/cmd/yaegi", name: "yaegi"}
)

// build returns the binary's path, building it the first time.
func (b *binary) build(tb testing.TB) string {
	tb.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "gotestdir-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, b.name)
		if out, err := exec.Command("go", "build", "-o", b.path, b.pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", b.name, err, out)
		}
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

var listeningRE = regexp.MustCompile(`msg="replhost listening" addr=([0-9.:]+)`)

// startHost runs the real binary on 127.0.0.1:0 and waits until it listens.
func startHost(tb testing.TB, args ...string) *host {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "root")
	logf, err := os.CreateTemp(tb.TempDir(), "host-*.log")
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(replhostBin.build(tb), append([]string{"serve", "--listen", "127.0.0.1:0", "--root", root,
		"--isolation", "process", "--max-sessions-per-user", "64"}, args...)...)
	cmd.Env = append(os.Environ(), "USER=tester")
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	h := &host{cmd: cmd, log: logf}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() { // the bootstrap's lines; drained so the host never blocks on them
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for h.addr == "" {
		b, _ := os.ReadFile(logf.Name())
		if m := listeningRE.FindSubmatch(b); m != nil {
			h.addr = string(m[1])
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("replhost did not listen: %s", b)
		}
		time.Sleep(20 * time.Millisecond) // polling the log: the host says nothing else when it listens
	}
	hostKey, _, err := users.LoadOrCreateKey(filepath.Join(root, "host_ed25519"), "")
	if err != nil {
		tb.Fatal(err)
	}
	userKey, _, err := users.LoadOrCreateKey(filepath.Join(root, "users", "tester", "id_ed25519"), "")
	if err != nil {
		tb.Fatal(err)
	}
	h.config = &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(userKey)},
		HostKeyCallback: gossh.FixedHostKey(hostKey.PublicKey()),
		Timeout:         30 * time.Second,
	}
	return h
}

// script pipes src to the host as `ssh host < file` does, on a connection
// of its own that is closed at the timeout (which ends the session).
func (h *host) script(src []byte, timeout time.Duration) (Outcome, error) {
	c, err := gossh.Dial("tcp", h.addr, h.config)
	if err != nil {
		return Outcome{}, err
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		return Outcome{}, err
	}
	var stdout, stderr bytes.Buffer
	s.Stdout = &limitedBuffer{buf: &stdout, max: MaxOutput}
	s.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	s.Stdin = bytes.NewReader(src)
	if err := s.Shell(); err != nil {
		return Outcome{}, err
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var o Outcome
	select {
	case err = <-done:
	case <-ctx.Done():
		c.Close()
		<-done
		o.TimedOut = true
		err = nil
	}
	o.Stdout, o.Stderr = stdout.String(), stderr.String()
	if ee, ok := err.(*gossh.ExitError); ok {
		o.Exit = ee.ExitStatus()
	} else if err != nil && !o.TimedOut {
		return o, fmt.Errorf("script: %w (stderr %q)", err, strings.TrimSpace(o.Stderr))
	}
	return o, nil
}
