package sshd

import (
	"context"
	"errors"

	"github.com/replhost/replhost/cluster"
	"github.com/replhost/replhost/repl"
)

// ClusterNode is a cluster.Node as the front door (Cluster) and the
// session manager (repl.Ownership) use it.
type ClusterNode struct{ Node *cluster.Node }

// Owner is the live owner of session id, as last read: a stale answer
// sends the login to a node that checks its own claim (cluster.CachedOwner).
func (c ClusterNode) Owner(ctx context.Context, id string) (addr string, self, ok bool, err error) {
	m, ok, err := c.Node.CachedOwner(ctx, id)
	if err != nil || !ok {
		return "", false, false, err
	}
	return m.Advertise, m.Node == c.Node.Name(), true, nil
}

// Place is the node of a new session of user: the rendezvous of the user
// over the live members that are not draining; this node when there is
// none.
func (c ClusterNode) Place(ctx context.Context, user string) (addr string, self bool, err error) {
	members, err := c.Node.Members(ctx)
	if err != nil {
		return "", false, err
	}
	m := c.Node.Place(user, members)
	if m.Node == "" || m.Node == c.Node.Name() {
		return "", true, nil
	}
	return m.Advertise, false, nil
}

// Err is ErrLost's kin while the node cannot prove its lease.
func (c ClusterNode) Err() error {
	select {
	case <-c.Node.Lost():
		return errors.New("etcd unreachable, lease unconfirmed")
	default:
		return nil
	}
}

// OwnerIn is the address of the node a failed claim names.
func (c ClusterNode) OwnerIn(err error) (string, bool) {
	var owned *cluster.OwnedError
	if errors.As(err, &owned) && owned.Owner.Advertise != "" && owned.Owner.Node != c.Node.Name() {
		return owned.Owner.Advertise, true
	}
	return "", false
}

// Claim claims owner's session id for this node.
func (c ClusterNode) Claim(ctx context.Context, id, owner string) (repl.Fence, error) {
	cl, err := c.Node.Claim(ctx, id, cluster.ForUser(owner))
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// CountUser is owner's sessions across the cluster.
func (c ClusterNode) CountUser(ctx context.Context, owner string) (int, error) {
	return c.Node.CountUser(ctx, owner)
}
