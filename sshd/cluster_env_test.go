package sshd_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// envOfForwarded prints, in a session, what its code sees of the
// environment a login gave it.
const envOfForwarded = `import ("fmt"; "os"); fmt.Printf("%s|%s|%s|%s|%s\n", os.Getenv("USER"), os.Getenv("LANG"), os.Getenv("SSH_ORIGINAL_COMMAND"), os.Getenv("SSH_CONNECTION"), os.Getenv("REPLHOST_SESSION_ENV"))`

// A session made through a node that is not the one it is placed on is
// created there with the environment of the client's own login: its
// SSH_CONNECTION (not the nodes' connection), its accepted LANG, and the
// SSH_ORIGINAL_COMMAND of a key with command=. A client that sends the
// nodes' variable itself is refused it.
func TestClusterForwardCarriesTheSessionEnvironment(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice")
	nodes := []*clusterNode{startNode(t, r, etcd.Endpoints(), "n1"), startNode(t, r, etcd.Endpoints(), "n2")}
	// A second key of alice's, forced to make a new session.
	forcedKey, pub := testhost.NewUserKey(t, t.TempDir(), "forced")
	line, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(r.Root, "users", "alice", "authorized_keys")
	f, err := os.OpenFile(keys, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`command="new" ` + string(line))
	f.Close()

	forwardedSeen := false
	for _, via := range nodes {
		c := testhost.DialKey(t, via.Addr, "alice", forcedKey, r.HostKey.PublicKey())
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Setenv("LANG", "de_DE.UTF-8"); err != nil {
			t.Fatalf("Setenv LANG: %v", err)
		}
		if err := s.Setenv("REPLHOST_SESSION_ENV", "USER=mallory"); err == nil {
			t.Errorf("through %s: a client's REPLHOST_SESSION_ENV accepted", via.name)
		}
		out, err := s.Output("make me one")
		s.Close()
		if err != nil {
			t.Fatalf("forced new through %s: %v", via.name, err)
		}
		id := strings.TrimSpace(string(out))
		home, ok := owner(t, via, id)
		if !ok {
			t.Fatalf("session %s has no owner", id)
		}
		forwardedSeen = forwardedSeen || home != via.name
		_, port, _ := net.SplitHostPort(c.Conn.LocalAddr().String())
		_, nodePort, _ := net.SplitHostPort(via.Addr)
		want := "alice|de_DE.UTF-8|make me one|127.0.0.1 " + port + " 127.0.0.1 " + nodePort + "|\n"
		c.Close()
		got := r.run(t, nodes[0], "alice", "eval --session "+id+" "+envOfForwarded, "")
		if got.Status != 0 || got.Stdout != want {
			t.Errorf("session made through %s (placed on %s) sees %+v; want %q", via.name, home, got, want)
		}
	}
	if !forwardedSeen {
		t.Fatal("no login was forwarded: both nodes placed alice's session on themselves")
	}
}

// A login that is not another node's cannot set the forwarded
// environment, even before its shell: the request is refused and the
// session sees its own connection.
func TestSessionEnvironmentOnlyFromNodes(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	c := h.Dial(t, "alice")
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ok, err := s.SendRequest("env", true, gossh.Marshal(struct{ Name, Value string }{"REPLHOST_SESSION_ENV", "USER=mallory\x00SSH_ORIGINAL_COMMAND=x"}))
	if err != nil || ok {
		t.Errorf("REPLHOST_SESSION_ENV from a client: accepted %v (%v); want refused", ok, err)
	}
	out, err := s.Output("eval " + envOfForwarded)
	_, port, _ := net.SplitHostPort(c.Conn.LocalAddr().String())
	if want := "alice|||127.0.0.1 " + port + " "; err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("the session sees %q (%v); want it to start %q", out, err, want)
	}
}
