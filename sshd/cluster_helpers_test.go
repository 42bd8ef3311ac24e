package sshd_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/replhost/replhost/cluster"
	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sshd"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// clusterNode is one replhost node in-process: its own manager, front door
// and cluster membership, on a root shared with the other nodes.
type clusterNode struct {
	name    string
	Addr    string
	Node    *cluster.Node
	Manager *repl.Manager
	Server  *sshd.Server
	stopped bool
	cancel  context.CancelFunc
}

// sharedRoot is a root for several nodes: one host key, one node key, users.
type sharedRoot struct {
	Root    string
	HostKey gossh.Signer
	keys    map[string]gossh.Signer
}

func newSharedRoot(tb testing.TB, names ...string) *sharedRoot {
	tb.Helper()
	r := &sharedRoot{Root: tb.TempDir(), keys: map[string]gossh.Signer{}}
	var err error
	if r.HostKey, _, err = users.LoadOrCreateKey(filepath.Join(r.Root, "host_ed25519"), "test host"); err != nil {
		tb.Fatal(err)
	}
	for _, n := range names {
		r.keys[n] = testhost.AddUser(tb, r.Root, n)
	}
	return r
}

// startNode starts node name of the cluster at endpoints on r.
func startNode(tb testing.TB, r *sharedRoot, endpoints []string, name string) *clusterNode {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := cluster.Join(ctx, cluster.Config{Endpoints: endpoints, Node: name, Advertise: l.Addr().String(),
		TTL: 2 * time.Second, Prefix: "/test/"})
	if err != nil {
		l.Close()
		tb.Fatalf("join %s: %v", name, err)
	}
	cn := sshd.ClusterNode{Node: n}
	log := slog.New(slog.NewTextHandler(testLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	mgr, err := repl.NewManager(repl.Config{Root: r.Root, Logger: log, Ownership: cn, NoSync: true, MaxSessionsPerUser: 64})
	if err != nil {
		tb.Fatal(err)
	}
	nodeKey, err := sshd.LoadNodeKey(r.Root)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := sshd.New(sshd.Config{Manager: mgr, Users: users.Open(r.Root), HostKey: r.HostKey, Logger: log,
		Penalties: &sshd.Penalties{}, PerSourceMaxStartups: -1, Cluster: cn, NodeKey: nodeKey})
	if err != nil {
		tb.Fatal(err)
	}
	bg, stopBg := context.WithCancel(context.Background())
	node := &clusterNode{name: name, Addr: l.Addr().String(), Node: n, Manager: mgr, Server: srv, cancel: stopBg}
	go srv.Serve(l)
	go func() { // what serve's watchLost does
		select {
		case <-n.Lost():
			mgr.DisownAll("this node lost contact with the cluster; attach again")
		case <-bg.Done():
		}
	}()
	tb.Cleanup(node.Stop)
	return node
}

// Stop ends the node as a shutdown does: sessions saved and released.
func (n *clusterNode) Stop() {
	if n.stopped {
		return
	}
	n.stopped = true
	n.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Manager.Shutdown(ctx)
	n.Server.Close()
	n.Node.Close()
}

// dial logs in to n as user.
func (r *sharedRoot) dial(tb testing.TB, n *clusterNode, user string) *gossh.Client {
	tb.Helper()
	return testhost.DialKey(tb, n.Addr, user, r.keys[user], r.HostKey.PublicKey())
}

// run runs an exec command as user through node n.
func (r *sharedRoot) run(tb testing.TB, n *clusterNode, user, cmd, stdin string) testhost.Result {
	tb.Helper()
	c := r.dial(tb, n, user)
	defer c.Close()
	return testhost.RunOn(tb, c, cmd, stdin)
}

// owner is the node that owns session id, as etcd says.
func owner(tb testing.TB, n *clusterNode, id string) (string, bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, ok, err := n.Node.Owner(ctx, id)
	if err != nil {
		tb.Fatalf("owner of %s: %v", id, err)
	}
	return m.Node, ok
}

// loaded reports whether n's manager runs session id (not only knows it
// from the shared root).
func loaded(n *clusterNode, id string) bool {
	for _, info := range n.Manager.ListAll() {
		if info.ID == id && info.State != repl.StateRestorable {
			return true
		}
	}
	return false
}

var testLog io.Writer = io.Discard
