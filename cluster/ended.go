package cluster

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A user removed (replhost user rm) must lose its sessions on every node,
// not only on the one the command reached. EndUser writes ended/<user>
// (under the writer's lease, deleted at once: only the event matters) and
// every node watching with EndedUsers ends the user's sessions it holds or
// finds ownerless on the shared root.

// endedRetry is the pause before a watch that etcd ended is started again.
const endedRetry = time.Second

// EndUser tells every node (itself included) that user was removed.
func (n *Node) EndUser(ctx context.Context, user string) error {
	if err := checkName("user", user); err != nil {
		return err
	}
	key := n.keys.ended(user)
	if _, err := n.cli.Put(ctx, key, n.cfg.Node, clientv3.WithLease(clientv3.LeaseID(n.lease.Load()))); err != nil {
		return err
	}
	_, err := n.cli.Delete(ctx, key) // if this fails, the key goes with the lease
	return err
}

// EndedUsers sends the user of every EndUser of any node made after it
// returned, until ctx ends or the node closes. The watch outlives etcd
// restarts and partitions: it resumes from the last revision it saw, so an
// EndUser made meanwhile arrives late rather than never (unless etcd
// compacted it away).
func (n *Node) EndedUsers(ctx context.Context) (<-chan string, error) {
	resp, err := n.cli.Get(ctx, n.keys.endedAll(), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return nil, err
	}
	out := make(chan string)
	go n.watchEnded(ctx, resp.Header.Revision+1, out)
	return out, nil
}

func (n *Node) watchEnded(ctx context.Context, rev int64, out chan<- string) {
	defer close(out)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the node's Close ends it too
		select {
		case <-n.ctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	prefix := n.keys.endedAll()
	for ctx.Err() == nil {
		wch := n.cli.Watch(clientv3.WithRequireLeader(ctx), prefix, clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithFilterDelete())
		for resp := range wch {
			if resp.CompactRevision > rev {
				rev = resp.CompactRevision // what was compacted away is lost
			}
			for _, ev := range resp.Events {
				rev = ev.Kv.ModRevision + 1
				select {
				case out <- string(ev.Kv.Key[len(prefix):]):
				case <-ctx.Done():
					return
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(endedRetry):
		}
	}
}
