package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replhost/replhost/admin"
	"github.com/replhost/replhost/cluster"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sshd"
)

// clusterFlags are serve's settings of cluster mode: several nodes on one
// shared root, coordinated through etcd (docs/cluster.md). Without
// --cluster-etcd the host is a single host and nothing here runs.
type clusterFlags struct {
	etcd, node, advertise string
	ttl                   time.Duration
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.etcd, "cluster-etcd", "", "etcd client URLs, comma-separated: run as one node of a cluster sharing --root (off when empty)")
	fs.StringVar(&c.node, "node", "", "this node's name in the cluster (default: the host name)")
	fs.StringVar(&c.advertise, "advertise", "", "HOST:PORT other nodes reach this node's SSH port at (default: --listen)")
	fs.DurationVar(&c.ttl, "cluster-ttl", 10*time.Second, "lease of this node in etcd: its sessions are taken over this long after it dies")
}

func (c *clusterFlags) enabled() bool { return c.etcd != "" }

// endpoints is --cluster-etcd as a list.
func (c *clusterFlags) endpoints() []string {
	var out []string
	for _, e := range strings.Split(c.etcd, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// nodeDir is where a node keeps what is its alone on the shared root:
// its lock and its admin socket, ROOT/nodes/NAME.
func nodeDir(root, node string) string { return filepath.Join(root, "nodes", node) }

// hostDir is the directory of the host's lock and admin socket: the root,
// or the node's own directory in cluster mode.
func (c *serveConfig) hostDir() (string, error) {
	if !c.cluster.enabled() {
		return c.root, nil
	}
	if c.cluster.node == "" {
		h, err := os.Hostname()
		if err != nil {
			return "", fmt.Errorf("--node: %w", err)
		}
		c.cluster.node = h
	}
	if c.cluster.node == "." || c.cluster.node == ".." || strings.ContainsAny(c.cluster.node, "/ ") {
		return "", fmt.Errorf("--node %q: want a name without '/' or spaces", c.cluster.node)
	}
	dir := nodeDir(c.root, c.cluster.node)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("node directory: %w", err)
	}
	return dir, nil
}

// loginFiles is where the host writes its known_hosts and ssh_config and
// the address they name: a node's own directory and advertised address on
// a cluster (ROOT's are written by the first node only), ROOT and the
// listen address on a single host.
func (c *serveConfig) loginFiles(hostDir, listen string) (own, addr string) {
	if !c.cluster.enabled() {
		return "", listen
	}
	if c.cluster.advertise != "" {
		return hostDir, c.cluster.advertise
	}
	return hostDir, listen
}

// joinCluster joins etcd as this node, advertising addr unless --advertise
// says otherwise.
func joinCluster(ctx context.Context, c *serveConfig, addr string) (*cluster.Node, error) {
	adv := c.cluster.advertise
	if adv == "" {
		adv = addr
	}
	jctx, cancel := context.WithTimeout(ctx, c.cluster.ttl+30*time.Second)
	defer cancel()
	n, err := cluster.Join(jctx, cluster.Config{Endpoints: c.cluster.endpoints(), Node: c.cluster.node,
		Advertise: adv, TTL: c.cluster.ttl})
	if err != nil {
		return nil, fmt.Errorf("join cluster: %w", err)
	}
	return n, nil
}

// watchLost hands off every session of this node each time it loses its
// lease (etcd unreachable too long): another node may own them already.
func watchLost(ctx context.Context, n *cluster.Node, mgr *repl.Manager, log *slog.Logger) {
	for {
		lost := n.Lost()
		select {
		case <-ctx.Done():
			return
		case <-lost:
		}
		log.Warn("lost the cluster lease: handing off every session")
		mgr.DisownAll("this node lost contact with the cluster; attach again")
		// A new epoch (the lease proven again, or a new one) gives a new
		// channel; until then poll at a slow pace.
		t := time.NewTicker(time.Second)
		for n.Lost() == lost {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		t.Stop()
	}
}

// watchEndedUsers ends, on this node, the sessions of every user removed
// through any node (replhost user rm reaches one node's admin socket).
// The watch starts before serving, so that no removal is missed.
func watchEndedUsers(ctx context.Context, n *cluster.Node, mgr *repl.Manager, log *slog.Logger) error {
	ended, err := n.EndedUsers(ctx)
	if err != nil {
		return fmt.Errorf("watch removed users: %w", err)
	}
	go func() {
		for user := range ended {
			log.Info("user removed on the cluster: ending its sessions", "user", user, "ended", mgr.KillUser(user))
		}
	}()
	return nil
}

// hostAdmin is the admin socket's view of the host: the sessions, and in
// cluster mode the drain.
type hostAdmin struct {
	*repl.Manager
	node *cluster.Node // nil: single host, no drain
	log  *slog.Logger
}

// KillUser ends owner's sessions here and, on a cluster, tells every other
// node to end theirs (the user was removed).
func (h hostAdmin) KillUser(owner string) int {
	n := h.Manager.KillUser(owner)
	if h.node != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.node.EndUser(ctx, owner); err != nil {
			h.log.Warn("tell the other nodes a user was removed", "user", owner, "err", err)
		}
	}
	return n
}

// Drain marks the node draining in the cluster (no new sessions placed on
// it) and hands off its detached sessions; attached ones follow at their
// next detach.
func (h hostAdmin) Drain() (int, error) {
	if h.node == nil {
		return 0, errors.New("not a cluster node (no --cluster-etcd): nothing to drain to")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.node.Drain(ctx); err != nil {
		return 0, err
	}
	return h.Manager.Drain(), nil
}

// clusterRoot reports whether cluster nodes run on root (ROOT/nodes/ is
// theirs): its sessions must never be removed from the disk behind them.
func clusterRoot(root string) bool {
	fi, err := os.Stat(filepath.Join(root, "nodes"))
	return err == nil && fi.IsDir()
}

// killUserOnCluster ends user name's sessions on every node through one
// node's admin socket (node's, or the first that answers on this
// machine): that node ends its own and tells the others through etcd.
func killUserOnCluster(root, node, name string) (int, error) {
	var dirs []string
	if node != "" {
		dirs = []string{nodeDir(root, node)}
	} else {
		entries, _ := os.ReadDir(filepath.Join(root, "nodes"))
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, nodeDir(root, e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		c, err := admin.Dial(dir)
		if err == nil {
			return c.KillUser(name)
		}
		if node != "" {
			return 0, err
		}
	}
	return 0, errors.New("no node of the cluster answers on this machine (ROOT/nodes/NAME/admin.sock): run it on a node, or with --node NAME; until then the sessions end at their TTL")
}

// clusterParts are what the cluster adds to the manager and the front door.
func clusterParts(n *cluster.Node) (repl.Ownership, sshd.Cluster) {
	cn := sshd.ClusterNode{Node: n}
	return cn, cn
}
