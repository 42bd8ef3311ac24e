package sshd_test

import (
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
