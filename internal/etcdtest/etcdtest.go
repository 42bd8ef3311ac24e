// Package etcdtest runs a real, private etcd server for tests: Debian's
// etcd-server binary on 127.0.0.1 ports of its own, with its data in the
// test's temporary directory, never the machine's system etcd.
package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Binary is the etcd server the tests run (Debian's etcd-server, v3.4).
var Binary = "/usr/bin/etcd"

// readyTimeout bounds the wait for a started server to answer.
const readyTimeout = 60 * time.Second

// Server is one single-member etcd cluster. Its methods are called from the
// test's goroutine.
type Server struct {
	tb        testing.TB
	dir       string
	clientURL string
	peerURL   string
	log       *bytes.Buffer // the server's output, shown when a test fails

	mu     sync.Mutex // guards cmd and exited
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
}

// Start runs a new etcd and waits until it serves; it is stopped at the
// end of the test. Without the binary the test is skipped (scripts/test
// installs it).
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := os.Stat(Binary); err != nil {
		tb.Skipf("etcd not installed (%v): apt-get install etcd-server", err)
	}
	s := &Server{tb: tb, dir: filepath.Join(tb.TempDir(), "etcd"), log: new(bytes.Buffer)}
	// A free port found by listening may be taken before etcd binds it:
	// pick new ones when the start fails that way.
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		s.clientURL = "http://" + freeAddr(tb)
		s.peerURL = "http://" + freeAddr(tb)
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		tb.Fatalf("etcdtest: %v\n%s", err, s.output())
	}
	tb.Cleanup(func() {
		s.Stop()
		if tb.Failed() {
			tb.Logf("etcd output:\n%s", s.output())
		}
	})
	return s
}

// Endpoints are the client URLs, for clientv3.Config.Endpoints.
func (s *Server) Endpoints() []string { return []string{s.clientURL} }

// Addr is the client address, host:port (for a Proxy in front of it).
func (s *Server) Addr() string { return s.clientURL[len("http://"):] }

// Stop kills the server (SIGKILL: what a crash does; etcd's data on disk
// survives it) and waits for it to exit. Safe to repeat.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// Restart starts the stopped server again on the same ports and data, so
// that its leases and keys come back; it waits until it serves.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.tb.Fatalf("etcdtest: restart: %v\n%s", err, s.output())
	}
}

func (s *Server) start() error {
	cmd := exec.Command(Binary,
		"--name", "test",
		"--data-dir", s.dir,
		"--listen-client-urls", s.clientURL,
		"--advertise-client-urls", s.clientURL,
		"--listen-peer-urls", s.peerURL,
		"--initial-advertise-peer-urls", s.peerURL,
		"--initial-cluster", "test="+s.peerURL,
		"--initial-cluster-state", "new",
		"--logger", "zap",
		"--log-outputs", "stderr",
		"--log-level", "warn",
	)
	// etcd reads ETCD_* variables (Debian's /etc/default/etcd sets them for
	// the system service): start it with a clean environment.
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	w := &lockedWriter{mu: &s.mu, b: s.log}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", Binary, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	if err := waitReady(s.Endpoints(), exited); err != nil {
		s.Stop()
		return err
	}
	return nil
}

// waitReady polls the server with a client until a read succeeds, it
// exits, or readyTimeout passes.
func waitReady(endpoints []string, exited <-chan struct{}) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cli.Close()
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = cli.Get(ctx, "etcdtest-ready")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("etcd exited before it served")
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd not ready after %v: %w", readyTimeout, err)
		}
		select { // retry pacing, not synchronisation
		case <-exited:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// freeAddr is a 127.0.0.1 port free right now.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("etcdtest: listen: %v", err)
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() > 1<<20 { // keep the head of a noisy log bounded
		return len(p), nil
	}
	return w.b.Write(p)
}
