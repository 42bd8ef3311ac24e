package sshd_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/internal/testhost"
)

// BenchmarkClusterCell is one `eval --session` cell on an open connection,
// through the session's owner (direct) and through another node, which
// carries it over a new internal SSH connection (forwarded): the
// difference is the routing's cost per cell.
func BenchmarkClusterCell(b *testing.B) {
	etcd := etcdtest.Start(b)
	r := newSharedRoot(b, "alice")
	owner := startNode(b, r, etcd.Endpoints(), "n1") // alone: it gets the session
	id := testhost.NewSession(b, r.dial(b, owner, "alice"))
	other := startNode(b, r, etcd.Endpoints(), "n2")
	for _, bc := range []struct {
		name string
		via  *clusterNode
	}{{"direct", owner}, {"forwarded", other}} {
		b.Run(bc.name, func(b *testing.B) {
			c := r.dial(b, bc.via, "alice")
			for b.Loop() {
				if res := testhost.RunOn(b, c, "eval --session "+id+" 1+1", ""); res.Status != 0 || res.Stdout != "2\n" {
					b.Fatalf("cell: %+v", res)
				}
			}
		})
	}
}

// BenchmarkClusterLogins is logins per second (connect, authenticate, one
// `eval` cell in a new session, out) from 4 clients of 12 users spread
// round-robin over the nodes, against one node and against three. The
// nodes share this process and its cores, so the figure is the cost of
// the cluster (placement, claims in etcd, forwarding to the placed node),
// not the scale-out of three machines.
func BenchmarkClusterLogins(b *testing.B) {
	userNames := make([]string, 12)
	for i := range userNames {
		userNames[i] = fmt.Sprintf("user%d", i)
	}
	for _, count := range []int{1, 3} {
		b.Run(fmt.Sprintf("nodes=%d", count), func(b *testing.B) {
			etcd := etcdtest.Start(b)
			r := newSharedRoot(b, userNames...)
			var nodes []*clusterNode
			for i := range count {
				nodes = append(nodes, startNode(b, r, etcd.Endpoints(), fmt.Sprintf("n%d", i+1)))
			}
			var next atomic.Int64
			b.SetParallelism(2) // 4 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					res := r.run(b, nodes[int(i)%len(nodes)], userNames[int(i)%len(userNames)], "eval 1+1", "")
					if res.Status != 0 || res.Stdout != "2\n" {
						b.Errorf("login %d: %+v", i, res)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "logins/s")
		})
	}
}

// BenchmarkClusterSessionsPerNode makes sessions (`new`, each of one of 60
// users, through the three nodes in turn, 4 clients at a time) and reports
// how many each node runs: placement spreads users by rendezvous hashing,
// so the share of the fullest node over an even share (max/even) is what
// to provision for.
func BenchmarkClusterSessionsPerNode(b *testing.B) {
	userNames := make([]string, 60)
	for i := range userNames {
		userNames[i] = fmt.Sprintf("user%02d", i)
	}
	etcd := etcdtest.Start(b)
	r := newSharedRoot(b, userNames...)
	var nodes []*clusterNode
	for i := range 3 {
		nodes = append(nodes, startNode(b, r, etcd.Endpoints(), fmt.Sprintf("n%d", i+1)))
	}
	for _, n := range nodes {
		n.Manager.SetSessionLimits(1<<20, nil)
	}
	var next atomic.Int64
	b.SetParallelism(2)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			res := r.run(b, nodes[int(i)%len(nodes)], userNames[int(i)%len(userNames)], "new", "")
			if res.Status != 0 || len(strings.TrimSpace(res.Stdout)) != 36 {
				b.Errorf("new %d: %+v", i, res)
				return
			}
		}
	})
	b.StopTimer()
	total, most := 0, 0
	for _, n := range nodes {
		c := n.Manager.Counts()
		here := c["detached"] + c["live"]
		total += here
		most = max(most, here)
		b.ReportMetric(float64(here), n.name+"-sessions")
	}
	if total != b.N {
		b.Errorf("%d sessions across the nodes; want %d", total, b.N)
	}
	b.ReportMetric(float64(most)/(float64(total)/3), "max/even")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sessions/s")
}
