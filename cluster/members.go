package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Members are the live nodes, sorted by name, each with the number of
// sessions it owns.
func (n *Node) Members(ctx context.Context) ([]Member, error) {
	prefix := n.keys.members()
	resp, err := n.cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("cluster: members: %w", err)
	}
	members := make([]Member, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		name := strings.TrimPrefix(string(kv.Key), prefix)
		if checkName("node name", name) != nil {
			continue // not a key this package writes
		}
		m, err := decodeMember(name, kv.Value)
		if err != nil {
			return nil, fmt.Errorf("cluster: members: %w", err)
		}
		members = append(members, m)
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Node < members[j].Node })
	rev := resp.Header.Revision
	for start := 0; start < len(members); start += maxTxnOps {
		batch := members[start:min(len(members), start+maxTxnOps)]
		ops := make([]clientv3.Op, len(batch))
		for i, m := range batch {
			ops[i] = clientv3.OpGet(n.keys.nodeSessions(m.Node), clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(rev))
		}
		cresp, err := n.cli.Txn(ctx).Then(ops...).Commit()
		if err != nil {
			return nil, fmt.Errorf("cluster: members: count sessions: %w", err)
		}
		for i := range batch {
			batch[i].Sessions = int(cresp.Responses[i].GetResponseRange().GetCount())
		}
	}
	return members, nil
}

// CountUser is the number of sessions of user claimed (ForUser) across the
// cluster.
func (n *Node) CountUser(ctx context.Context, user string) (int, error) {
	if err := checkName("user name", user); err != nil {
		return 0, err
	}
	resp, err := n.cli.Get(ctx, n.keys.userSessions(user), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("cluster: count sessions of %s: %w", user, err)
	}
	return int(resp.Count), nil
}
