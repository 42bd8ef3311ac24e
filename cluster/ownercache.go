package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Routing asks who owns a session for every forwarded command; CachedOwner
// answers from memory what it read before, dropped by a watch of the keys
// as soon as they change. A stale answer (within the watch's latency, or
// while etcd is unreachable) only sends a login to a node that no longer
// owns the session: that node checks its own claim, so it claims the
// session or refuses it, and fencing never rests on this cache.

// maxCachedOwners bounds the cache; past it, it starts empty again.
const maxCachedOwners = 1 << 16

// ownerCache is what CachedOwner remembers.
type ownerCache struct {
	mu       sync.Mutex // guards the fields below
	watching bool
	seen     int64             // revision of the last change the watch applied
	owners   map[string]Member // session id → its owner when read
}

// CachedOwner is Owner, answered from memory when this node read the
// owner before and the watch has seen no change of it since.
func (n *Node) CachedOwner(ctx context.Context, sessionID string) (Member, bool, error) {
	if err := n.watchOwners(ctx); err != nil {
		return n.Owner(ctx, sessionID)
	}
	c := &n.owners
	c.mu.Lock()
	m, ok := c.owners[sessionID]
	c.mu.Unlock()
	if ok {
		return m, true, nil
	}
	m, ok, rev, err := n.owner(ctx, sessionID)
	if err == nil && ok {
		c.put(sessionID, m, rev)
	}
	return m, ok, err
}

// cachedOwner reports whether the cache holds session id (tests).
func (n *Node) cachedOwner(id string) bool {
	n.owners.mu.Lock()
	defer n.owners.mu.Unlock()
	_, ok := n.owners.owners[id]
	return ok
}

// put remembers m as session id's owner, read at revision rev, unless the
// watch applied a change after rev (which may be of this key).
func (c *ownerCache) put(id string, m Member, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rev < c.seen {
		return
	}
	if c.owners == nil || len(c.owners) >= maxCachedOwners {
		c.owners = map[string]Member{}
	}
	c.owners[id] = m
}

// changed applies a change of key at revision rev.
func (c *ownerCache) changed(k keys, key string, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = max(c.seen, rev)
	if id, ok := strings.CutPrefix(key, k.session("")); ok {
		delete(c.owners, id)
	} else if node, ok := strings.CutPrefix(key, k.members()); ok {
		for id, m := range c.owners {
			if m.Node == node {
				delete(c.owners, id)
			}
		}
	}
}

// watchOwners starts the watch at the first call; it runs until Close.
func (n *Node) watchOwners(ctx context.Context) error {
	c := &n.owners
	c.mu.Lock()
	watching := c.watching
	c.mu.Unlock()
	if watching {
		return nil
	}
	resp, err := n.cli.Get(ctx, n.keys.members(), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.watching { // of callers racing here, one starts it
		c.watching, c.seen = true, resp.Header.Revision
		go n.watchOwnerKeys(resp.Header.Revision + 1)
	}
	return nil
}

// watchOwnerKeys applies every change of a session or member key from
// revision rev on, resuming where it left off when etcd ends the watch.
func (n *Node) watchOwnerKeys(rev int64) {
	c := &n.owners
	for n.ctx.Err() == nil {
		wch := n.cli.Watch(clientv3.WithRequireLeader(n.ctx), n.keys.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev))
		for resp := range wch {
			if resp.CompactRevision > 0 {
				// Changes were compacted away: forget everything.
				c.mu.Lock()
				c.owners, c.seen = nil, max(c.seen, resp.CompactRevision)
				c.mu.Unlock()
				rev = resp.CompactRevision
			}
			for _, ev := range resp.Events {
				c.changed(n.keys, string(ev.Kv.Key), ev.Kv.ModRevision)
				rev = ev.Kv.ModRevision + 1
			}
		}
		select {
		case <-n.ctx.Done():
		case <-time.After(endedRetry):
		}
	}
}

// owner is Owner with the revision it read at.
func (n *Node) owner(ctx context.Context, sessionID string) (Member, bool, int64, error) {
	if err := checkName("session id", sessionID); err != nil {
		return Member{}, false, 0, err
	}
	resp, err := n.cli.Get(ctx, n.keys.session(sessionID))
	if err != nil {
		return Member{}, false, 0, fmt.Errorf("cluster: owner of %s: %w", sessionID, err)
	}
	rev := resp.Header.Revision
	if len(resp.Kvs) == 0 {
		return Member{}, false, rev, nil
	}
	owner := string(resp.Kvs[0].Value)
	mresp, err := n.cli.Get(ctx, n.keys.member(owner), clientv3.WithRev(rev))
	if err != nil {
		return Member{}, false, 0, fmt.Errorf("cluster: owner of %s: %w", sessionID, err)
	}
	if len(mresp.Kvs) == 0 {
		return Member{Node: owner}, true, rev, nil
	}
	m, err := decodeMember(owner, mresp.Kvs[0].Value)
	if err != nil {
		return Member{}, false, 0, fmt.Errorf("cluster: owner of %s: %w", sessionID, err)
	}
	return m, true, rev, nil
}
