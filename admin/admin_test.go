package admin

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/repl"
)

// dialHelperEnv makes the test binary a client that tries the socket named
// by it and exits 0 if the host refused it, 3 if it got an answer.
const dialHelperEnv = "REPLHOST_ADMIN_DIAL_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(dialHelperEnv); path != "" {
		os.Exit(dialHelper(path))
	}
	os.Exit(m.Run())
}

func dialHelper(path string) int {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return 4
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprint(c, "GET /sessions HTTP/1.1\r\nHost: x\r\n\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 0 // closed without an answer
	}
	fmt.Fprintln(os.Stderr, "answered:", line)
	return 3
}

func startAdmin(t *testing.T) (string, *repl.Manager) {
	t.Helper()
	root := t.TempDir()
	m, err := repl.NewManager(repl.Config{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	l, err := Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go Serve(ctx, l, m)
	return root, m
}

// The socket lists every user's sessions, kills one whoever owns it, and
// kills all of a user's.
func TestListKillAndKillUser(t *testing.T) {
	root, m := startAdmin(t)
	var ids []string
	for _, u := range []string{"alice", "bob", "bob"} {
		s, err := m.Create(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		m.Release(s)
		ids = append(ids, s.ID())
	}
	c, err := Dial(root)
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.Sessions()
	if err != nil || len(list) != 3 || list[0].Owner != "alice" || list[0].ID != ids[0] {
		t.Fatalf("sessions = %+v, %v; want alice's then bob's two", list, err)
	}
	if err := c.Kill(ids[0]); err != nil {
		t.Errorf("kill alice's: %v", err)
	}
	if err := c.Kill(ids[0]); err == nil || !strings.Contains(err.Error(), "no such session") {
		t.Errorf("second kill: %v; want no such session", err)
	}
	if n, err := c.KillUser("bob"); n != 2 || err != nil {
		t.Errorf("kill bob's = %d, %v; want 2", n, err)
	}
	if got := m.ListAll(); len(got) != 0 {
		t.Errorf("sessions left: %+v", got)
	}
}

// A second host on the same root does not take a live socket over; one a
// dead host left is replaced.
func TestListenKeepsALiveSocketAndReplacesADeadOne(t *testing.T) {
	root, _ := startAdmin(t)
	if _, err := Listen(root); err == nil || !strings.Contains(err.Error(), "another host") {
		t.Errorf("second Listen: %v; want another host", err)
	}
	dead := t.TempDir()
	l, err := net.Listen("unix", SocketPath(dead))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // the file stays, nobody listens: a crashed host's
	l2, err := Listen(dead)
	if err != nil {
		t.Fatalf("Listen over a dead socket: %v", err)
	}
	l2.Close()
}

// Another uid is refused by the socket itself (SO_PEERCRED), even where
// the file's mode would let it connect.
func TestOtherUIDIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as another uid")
	}
	root, _ := startAdmin(t)
	// Let uid 65534 reach the socket, so that only the peer check stands.
	for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	os.Chmod(SocketPath(root), 0o666)
	// The client is this test binary, copied where uid 65534 may run it.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "client.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), dialHelperEnv+"="+SocketPath(root))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("client as uid 65534: %v: %s; want refused without an answer", err, out)
	}
}

// A root too deep for a socket address still gets its socket, reached
// through the directory's descriptor.
func TestDeepRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	m, err := repl.NewManager(repl.Config{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	l, err := Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, l, m)
	s, _ := m.Create(context.Background(), "alice")
	m.Release(s)
	c, err := Dial(root)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := c.Sessions(); err != nil || len(list) != 1 {
		t.Errorf("sessions = %+v, %v; want alice's", list, err)
	}
	cancel()
	l.Close()
	if _, err := os.Stat(SocketPath(root)); !os.IsNotExist(err) {
		t.Errorf("socket after Close: %v; want it removed", err)
	}
}
