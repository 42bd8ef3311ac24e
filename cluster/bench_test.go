package cluster

import (
	"fmt"
	"testing"

	"github.com/replhost/replhost/internal/etcdtest"
)

// BenchmarkClaim is one Claim of a new session: one etcd transaction.
func BenchmarkClaim(b *testing.B) {
	srv := etcdtest.Start(b)
	n := join(b, srv.Endpoints(), "a")
	ctx := ctxT(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := n.Claim(ctx, fmt.Sprintf("b-%d", i), ForUser("ann")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimRelease is a Claim and its Release: two transactions.
func BenchmarkClaimRelease(b *testing.B) {
	srv := etcdtest.Start(b)
	n := join(b, srv.Endpoints(), "a")
	ctx := ctxT(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := n.Claim(ctx, "s", ForUser("ann"))
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is the fence check before a journal write: no round trip.
func BenchmarkCheck(b *testing.B) {
	srv := etcdtest.Start(b)
	n := join(b, srv.Endpoints(), "a")
	c, err := n.Claim(ctxT(b), "s")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Check(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlace is a placement over 3 members.
func BenchmarkPlace(b *testing.B) {
	ms := []Member{{Node: "n1"}, {Node: "n2"}, {Node: "n3"}}
	for i := 0; i < b.N; i++ {
		place("user42", ms)
	}
}
