package cluster

import (
	"context"
	"fmt"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Claim is this node's ownership of one session. Check it before each
// journal write.
type Claim struct {
	n     *Node
	id    string
	user  string
	fence int64 // create revision of sessions/<id>
	lease clientv3.LeaseID

	lost     atomic.Bool // sticky: released, key gone or taken, lease lost
	released atomic.Bool
}

// OwnedError is a Claim refused because another live node owns the session.
type OwnedError struct {
	Session string
	Owner   Member // Node and Advertise; Sessions is not filled
}

func (e *OwnedError) Error() string {
	return fmt.Sprintf("cluster: session %s is owned by node %s (%s)", e.Session, e.Owner.Node, e.Owner.Advertise)
}

// ClaimOption adds to a Claim.
type ClaimOption func(*Claim)

// ForUser counts the claimed session as user's, for CountUser.
func ForUser(user string) ClaimOption { return func(c *Claim) { c.user = user } }

// maxTxnOps stays below etcd's default --max-txn-ops (128).
const maxTxnOps = 64

// Claim makes this node the owner of sessionID: the key sessions/<id> is
// created, under this node's lease, only if it does not exist, so of nodes
// racing exactly one wins. If another live node owns it, the error is an
// *OwnedError naming it. Claiming a session this node already holds
// returns the held Claim; so does claiming one whose earlier Claim here
// failed after etcd had applied it (ctx ended before the reply).
func (n *Node) Claim(ctx context.Context, sessionID string, opts ...ClaimOption) (*Claim, error) {
	if err := checkName("session id", sessionID); err != nil {
		return nil, err
	}
	c := &Claim{n: n, id: sessionID}
	for _, o := range opts {
		o(c)
	}
	if c.user != "" {
		if err := checkName("user name", c.user); err != nil {
			return nil, err
		}
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if held, ok := n.claims[sessionID]; ok && !held.lost.Load() {
		n.mu.Unlock()
		return held, nil
	}
	n.mu.Unlock()
	c.lease = clientv3.LeaseID(n.lease.Load())
	key := n.keys.session(sessionID)
	ops := []clientv3.Op{
		clientv3.OpPut(key, n.cfg.Node, clientv3.WithLease(c.lease)),
		clientv3.OpPut(n.keys.nodeSessions(n.cfg.Node)+sessionID, c.user, clientv3.WithLease(c.lease)),
	}
	if c.user != "" {
		ops = append(ops, clientv3.OpPut(n.keys.userSessions(c.user)+sessionID, n.cfg.Node, clientv3.WithLease(c.lease)))
	}
	resp, err := n.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(ops...).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return nil, fmt.Errorf("cluster: claim %s: %w", sessionID, err)
	}
	if resp.Succeeded {
		c.fence = resp.Header.Revision
		return n.hold(c), nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 { // cannot happen: the Else branch ran because it exists
		return nil, fmt.Errorf("cluster: claim %s: key vanished in its transaction", sessionID)
	}
	kv := kvs[0]
	owner := string(kv.Value)
	if owner == n.cfg.Node && clientv3.LeaseID(kv.Lease) == c.lease {
		c.fence = kv.CreateRevision // ours already (a concurrent Claim here won)
		return n.hold(c), nil
	}
	m := Member{Node: owner}
	// The member key at the same revision: it shares the owner's lease.
	mresp, err := n.cli.Get(ctx, n.keys.member(owner), clientv3.WithRev(resp.Header.Revision))
	if err == nil && len(mresp.Kvs) == 1 {
		if dm, derr := decodeMember(owner, mresp.Kvs[0].Value); derr == nil {
			m = dm
		}
	}
	return nil, &OwnedError{Session: sessionID, Owner: m}
}

// hold records c as held, or returns the claim a concurrent call recorded.
func (n *Node) hold(c *Claim) *Claim {
	n.mu.Lock()
	defer n.mu.Unlock()
	if held, ok := n.claims[c.id]; ok && !held.lost.Load() && held.fence == c.fence {
		return held
	}
	if n.closed {
		c.lost.Store(true)
		return c
	}
	n.claims[c.id] = c
	return c
}

// ID is the claimed session's id.
func (c *Claim) ID() string { return c.id }

// Fence is the claim's fencing token: the create revision of its key,
// larger for every later owner of the session.
func (c *Claim) Fence() int64 { return c.fence }

// Check says whether this node may still write the session: it fails with
// ErrLost once the claim is gone for good, and with ErrUnconfirmed, without
// a network round trip, once the node's lease has not been confirmed by
// etcd recently enough to be sure it is still alive (the deadline is the
// send time of the last confirmed keepalive + TTL - Margin, which comes
// before the lease can expire and another node claim the session).
func (c *Claim) Check() error {
	if c.lost.Load() || clientv3.LeaseID(c.n.lease.Load()) != c.lease {
		return fmt.Errorf("%w: %s", ErrLost, c.id)
	}
	if !c.n.confirmed() {
		return fmt.Errorf("%w: %s", ErrUnconfirmed, c.id)
	}
	return nil
}

// Release gives the session up: its keys are deleted if they still hold
// this claim's fence. Check fails from then on. If etcd cannot be reached
// the error is returned and the node keeps trying in the background. Safe
// to repeat.
func (c *Claim) Release(ctx context.Context) error {
	if c.released.Swap(true) {
		return nil
	}
	c.lost.Store(true)
	n := c.n
	n.mu.Lock()
	if n.claims[c.id] == c {
		delete(n.claims, c.id)
	}
	n.mu.Unlock()
	if err := c.deleteKeys(ctx); err != nil {
		n.mu.Lock()
		n.releases = append(n.releases, c)
		n.mu.Unlock()
		return fmt.Errorf("cluster: release %s: %w", c.id, err)
	}
	return nil
}

func (c *Claim) deleteKeys(ctx context.Context) error {
	k := c.n.keys
	key := k.session(c.id)
	mine := k.nodeSessions(c.n.cfg.Node) + c.id
	then := []clientv3.Op{clientv3.OpDelete(key), clientv3.OpDelete(mine)}
	if c.user != "" {
		then = append(then, clientv3.OpDelete(k.userSessions(c.user)+c.id))
	}
	_, err := c.n.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", c.fence)).
		Then(then...).
		Else(clientv3.OpDelete(mine)). // the session is someone else's now
		Commit()
	return err
}

// Owner is the live node that owns sessionID, if any.
func (n *Node) Owner(ctx context.Context, sessionID string) (Member, bool, error) {
	m, ok, _, err := n.owner(ctx, sessionID)
	return m, ok, err
}

// verify compares, in batches, that every held claim's key still holds its
// fence under this node's lease, and marks the claims that do not lost; it
// retries the deletes of releases that failed. Called by the keepalive loop
// after a confirmed beat.
func (n *Node) verify() {
	n.mu.Lock()
	held := make([]*Claim, 0, len(n.claims))
	for _, c := range n.claims {
		held = append(held, c)
	}
	pending := n.releases
	n.releases = nil
	n.mu.Unlock()
	for len(held) > 0 {
		batch := held[:min(len(held), maxTxnOps)]
		held = held[len(batch):]
		ops := make([]clientv3.Op, len(batch))
		for i, c := range batch {
			ops[i] = clientv3.OpGet(n.keys.session(c.id))
		}
		ctx, cancel := context.WithTimeout(n.ctx, callTimeout)
		resp, err := n.cli.Txn(ctx).Then(ops...).Commit()
		cancel()
		if err != nil {
			break // unconfirmed claims fail Check by the deadline anyway
		}
		for i, c := range batch {
			kvs := resp.Responses[i].GetResponseRange().GetKvs()
			if len(kvs) == 1 && kvs[0].CreateRevision == c.fence && clientv3.LeaseID(kvs[0].Lease) == c.lease {
				continue
			}
			c.lost.Store(true)
			n.mu.Lock()
			if n.claims[c.id] == c {
				delete(n.claims, c.id)
			}
			n.mu.Unlock()
		}
	}
	for i, c := range pending {
		ctx, cancel := context.WithTimeout(n.ctx, callTimeout)
		err := c.deleteKeys(ctx)
		cancel()
		if err != nil {
			n.mu.Lock()
			n.releases = append(n.releases, pending[i:]...)
			n.mu.Unlock()
			return
		}
	}
}
