// Package testhost starts a real replhost SSH server on 127.0.0.1:0 for
// tests, with users, their keys on disk (for OpenSSH clients too) and
// golang.org/x/crypto/ssh clients.
package testhost

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/sshd"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// Options change the host a test starts; the zero value is an in-process
// host with users alice and bob.
type Options struct {
	Root     string   // "" : a new temporary directory
	Users    []string // nil: alice, bob
	Repl     repl.Config
	SSH      sshd.Config
	LogTo    io.Writer // nil: discarded
	KeepRoot bool      // do not remove Root at cleanup (restart tests)
	// Process runs each session in a worker process: the test binary itself,
	// whose TestMain must call ServeWorker first. Memory caps each worker
	// (0: 256 MiB).
	Process bool
	Memory  int64
	// WorkerBinary, with Process, is the binary the workers run instead
	// of the test binary: a cmd/replhost-worker built like it
	// (internal/workerbuild), as a host installed with it runs.
	WorkerBinary string
}

// ServeWorker makes a test binary a worker when the host started it as one;
// call it first in TestMain.
func ServeWorker() {
	if os.Getenv(sandbox.WorkerEnv) != "" {
		os.Exit(sandbox.WorkerMain())
	}
}

// Host is a running server.
type Host struct {
	Addr    string
	Root    string
	Manager *repl.Manager
	Server  *sshd.Server
	HostKey gossh.Signer
	keys    map[string]gossh.Signer
	keyDir  string
	done    chan error
}

// Start starts a host and stops it at the end of the test.
func Start(tb testing.TB, opts Options) *Host {
	tb.Helper()
	root := opts.Root
	if root == "" {
		root = tb.TempDir()
	}
	names := opts.Users
	if names == nil {
		names = []string{"alice", "bob"}
	}
	h := &Host{Root: root, keys: map[string]gossh.Signer{}, keyDir: tb.TempDir()}
	var err error
	h.HostKey, _, err = users.LoadOrCreateKey(filepath.Join(root, "host_ed25519"), "test host")
	if err != nil {
		tb.Fatal(err)
	}
	dir := users.Open(root)
	for _, n := range names {
		h.keys[n] = h.addUser(tb, dir, n)
	}
	logw := opts.LogTo
	if logw == nil {
		logw = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	rc := opts.Repl
	rc.Root = root
	rc.Logger = log
	if opts.Process {
		exe, err := os.Executable()
		if err != nil {
			tb.Fatal(err)
		}
		args := []string{"-test.run=^$"}
		if opts.WorkerBinary != "" {
			exe, args = opts.WorkerBinary, nil
		}
		pool := sandbox.NewPool(sandbox.PoolOptions{Executable: exe, Args: args})
		tb.Cleanup(func() { pool.Close() })
		mem := opts.Memory
		if mem == 0 {
			mem = 256 << 20
		}
		rc.NewEvaluator = repl.InWorkers(pool, sandbox.NewAllowlist(nil), mem)
	}
	h.Manager, err = repl.NewManager(rc)
	if err != nil {
		tb.Fatal(err)
	}
	sc := opts.SSH
	if sc.Penalties == nil {
		// Tests log in from 127.0.0.1 again and again, failing on purpose;
		// a test of penalties sets its own (&sshd.DefaultPenalties for sshd's).
		sc.Penalties = &sshd.Penalties{}
	}
	sc.Manager, sc.Users, sc.HostKey, sc.Logger = h.Manager, dir, h.HostKey, log
	h.Server, err = sshd.New(sc)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h.Addr = l.Addr().String()
	h.done = make(chan error, 1)
	go func() { h.done <- h.Server.Serve(l) }()
	tb.Cleanup(func() { h.Stop() })
	return h
}

// Stop shuts the host down (sessions stay on disk); safe to call twice.
func (h *Host) Stop() {
	if h.done == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.Manager.Shutdown(ctx)
	h.Server.Close()
	<-h.done
	h.done = nil
}

// addUser makes a key for name, writes it where OpenSSH can use it, and
// authorizes it.
func (h *Host) addUser(tb testing.TB, dir *users.Dir, name string) gossh.Signer {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, name)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(h.KeyFile(name), pem.EncodeToMemory(block), 0o600); err != nil {
		tb.Fatal(err)
	}
	if _, err := dir.Add(name, gossh.MarshalAuthorizedKey(signer.PublicKey())); err != nil {
		tb.Fatal(err)
	}
	return signer
}

// KeyFile is the private key file of user name (OpenSSH format).
func (h *Host) KeyFile(name string) string { return filepath.Join(h.keyDir, name+"_ed25519") }

// Signer is user name's key.
func (h *Host) Signer(name string) gossh.Signer { return h.keys[name] }

// ClientConfig is an x/crypto/ssh client config for user name that checks
// the host key.
func (h *Host) ClientConfig(name string) *gossh.ClientConfig {
	return &gossh.ClientConfig{
		User:            name,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(h.keys[name])},
		HostKeyCallback: gossh.FixedHostKey(h.HostKey.PublicKey()),
		Timeout:         30 * time.Second, // handshake bound, generous for a loaded machine
	}
}

// Dial connects as user name; the client is closed at the end of the test.
func (h *Host) Dial(tb testing.TB, name string) *gossh.Client {
	tb.Helper()
	c, err := gossh.Dial("tcp", h.Addr, h.ClientConfig(name))
	if err != nil {
		tb.Fatalf("dial as %s: %v", name, err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// Result is what a command printed and its exit status.
type Result struct {
	Stdout, Stderr string
	Status         int
}

// Run runs an exec command as user name with stdin, on a new connection.
func (h *Host) Run(tb testing.TB, name, cmd, stdin string) Result {
	tb.Helper()
	c := h.Dial(tb, name)
	defer c.Close()
	return RunOn(tb, c, cmd, stdin)
}

// RunOn runs an exec command (or a script when cmd is "") on an open
// connection.
func RunOn(tb testing.TB, c *gossh.Client, cmd, stdin string) Result {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatalf("new session: %v", err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &out, &errOut, strings.NewReader(stdin)
	if cmd == "" {
		err = s.Shell()
		if err == nil {
			err = s.Wait()
		}
	} else {
		err = s.Run(cmd)
	}
	r := Result{Stdout: out.String(), Stderr: errOut.String()}
	if ee, ok := err.(*gossh.ExitError); ok {
		r.Status = ee.ExitStatus()
	} else if err != nil {
		tb.Fatalf("run %q: %v", cmd, err)
	}
	return r
}

// SSHArgs are the OpenSSH client arguments that log in as user name without
// prompts (known host key, the user's key only, batch mode).
func (h *Host) SSHArgs(tb testing.TB, name string) []string {
	tb.Helper()
	host, port, _ := net.SplitHostPort(h.Addr)
	known := filepath.Join(h.keyDir, "known_hosts")
	line := fmt.Sprintf("[%s]:%s %s", host, port, gossh.MarshalAuthorizedKey(h.HostKey.PublicKey()))
	if err := os.WriteFile(known, []byte(line), 0o600); err != nil {
		tb.Fatal(err)
	}
	return []string{"-i", h.KeyFile(name), "-o", "IdentitiesOnly=yes", "-o", "UserKnownHostsFile=" + known,
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", port, "-l", name}
}

// Host is the address OpenSSH clients connect to.
func (h *Host) HostName() string {
	host, _, _ := net.SplitHostPort(h.Addr)
	return host
}
