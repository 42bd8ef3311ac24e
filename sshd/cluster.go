package sshd

import (
	"context"
	"crypto/subtle"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// Cluster is what the front door needs of the node's cluster membership to
// route a login: where a session lives, and where a new one goes.
type Cluster interface {
	// Owner is the advertise address of session id's live owner; self when
	// that is this node; ok is false when no live node owns it.
	Owner(ctx context.Context, id string) (addr string, self, ok bool, err error)
	// Place is the node a new session of user goes to.
	Place(ctx context.Context, user string) (addr string, self bool, err error)
	// OwnerIn is the owner's address a failed claim names (another node
	// won a race); ok false for other errors.
	OwnerIn(err error) (addr string, ok bool)
	// Err is why this node cannot serve sessions now (it cannot prove
	// its lease to etcd); nil when it can.
	Err() error
}

// clusterCallTimeout bounds one routing question to the cluster.
const clusterCallTimeout = 5 * time.Second

// nodeSource is the grant of a login forwarded by another node: it
// authenticated with the node key, which only the nodes read (ROOT/node_key).
const nodeSource = "node key"

// NodeKeyFile is the key nodes of a cluster authenticate to each other with.
const NodeKeyFile = "node_key"

// LoadNodeKey reads ROOT/node_key, creating it (0600) at first start.
func LoadNodeKey(root string) (gossh.Signer, error) {
	k, _, err := users.LoadOrCreateKey(filepath.Join(root, NodeKeyFile), "replhost node key")
	return k, err
}

// nodeGrant is the grant of key when it is the node key and user is a
// configured user: the forwarding node already applied the user's own
// key options, and the SSH user name it sends is the identity it checked.
func (s *Server) nodeGrant(user string, key gossh.PublicKey) (users.Grant, bool) {
	if s.cfg.NodeKey == nil {
		return users.Grant{}, false
	}
	want := s.cfg.NodeKey.PublicKey().Marshal()
	if subtle.ConstantTimeCompare(key.Marshal(), want) != 1 {
		return users.Grant{}, false
	}
	if users.CheckName(user) != nil {
		return users.Grant{}, false
	}
	fi, err := os.Stat(filepath.Join(s.cfg.Users.Path(user), "authorized_keys"))
	if err != nil || !fi.Mode().IsRegular() {
		return users.Grant{}, false
	}
	return users.Grant{Source: nodeSource}, true
}

// forwarded reports whether sess came from another node: it is served
// here, never forwarded again (no loops).
func forwarded(sess ssh.Session) bool {
	g, _ := grantOf(sess.Context())
	return g.Source == nodeSource
}

// routeElsewhere carries sess to the node that should serve it, when that
// is another node, and reports whether it did.
func (s *Server) routeElsewhere(sess ssh.Session, subsystem string) bool {
	if s.cfg.Cluster == nil || s.cfg.NodeKey == nil {
		return false
	}
	if err := s.cfg.Cluster.Err(); err != nil {
		// Its sessions may be another node's already: serve none.
		fmt.Fprintf(sess.Stderr(), "error: this node is cut off from the cluster (%v); try again or another node\n", err)
		sess.Exit(1)
		return true
	}
	if forwarded(sess) {
		return false
	}
	addr, ok := s.target(sess, subsystem)
	if !ok {
		return false
	}
	sess.Exit(s.forward(sess, addr, subsystem))
	return true
}

// target is where sess belongs when that is another node.
func (s *Server) target(sess ssh.Session, subsystem string) (string, bool) {
	ctx, cancel := context.WithTimeout(sess.Context(), clusterCallTimeout)
	defer cancel()
	id, placed := sessionOfCommand(sess, subsystem)
	if subsystem != "" {
		// sftp reaches every node's sessions from here (clustersftp.go);
		// a draining node sends it to the placed one, so as to take none.
		placed = s.cfg.Manager.Draining()
	}
	if placed {
		addr, self, err := s.cfg.Cluster.Place(ctx, sess.User())
		if err != nil {
			s.log.Warn("place session", "user", sess.User(), "err", err)
			return "", false // served here
		}
		return addr, !self
	}
	if id == "" || s.cfg.Manager.Owns(id) {
		return "", false // no round trip to etcd for this node's own sessions
	}
	addr, self, ok, err := s.cfg.Cluster.Owner(ctx, id)
	if err != nil {
		s.log.Warn("session owner", "session", id, "err", err)
		return "", false
	}
	if ok {
		return addr, !self
	}
	if s.cfg.Manager.Draining() {
		// A draining node takes no session: the placed node restores it.
		addr, self, err := s.cfg.Cluster.Place(ctx, sess.User())
		if err == nil && !self {
			return addr, true
		}
	}
	// No live owner: claim it here (failover restores it from the shared
	// root on first use); a node that won the race meanwhile serves it.
	rs, err := s.cfg.Manager.Acquire(sess.User(), id)
	if err == nil {
		s.cfg.Manager.Release(rs)
		return "", false
	}
	if addr, ok := s.cfg.Cluster.OwnerIn(err); ok {
		return addr, true
	}
	return "", false // the handler tells the error
}

// sessionOfCommand is the session a login names (attach, --session,
// artifacts, udf call, kill), or placed when it makes a new session (a
// shell, new).
func sessionOfCommand(sess ssh.Session, subsystem string) (id string, placed bool) {
	if subsystem != "" {
		return "", false
	}
	raw := strings.TrimLeft(sess.RawCommand(), " \t")
	name, args, _ := strings.Cut(raw, " ")
	switch strings.TrimSpace(name) {
	case "":
		_, _, isPty := sess.Pty()
		return "", isPty
	case "new":
		return "", true
	case "attach", "kill":
		if f := strings.Fields(args); len(f) == 1 {
			return f[0], false
		}
	case "eval":
		id, _, _ := sessionFlag(args)
		return id, false
	case "artifacts", "udf":
		return sessionArg(sess.Command()), false
	}
	return "", false
}

// sessionArg is the value of a --session flag anywhere in args.
func sessionArg(args []string) string {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	id := fs.String("session", "", "")
	for i := range args {
		if strings.HasPrefix(args[i], "--session") || strings.HasPrefix(args[i], "-session") {
			fs.Parse(args[i:min(i+2, len(args))])
			return *id
		}
	}
	return ""
}
