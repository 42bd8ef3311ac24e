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

// BenchmarkVerify is one pass of the periodic compare over the claims a
// node holds (after each confirmed keepalive, every TTL/3): its cost per
// session held is what the cluster adds to a node's sessions.
func BenchmarkVerify(b *testing.B) {
	for _, held := range []int{100, 1000} {
		b.Run(fmt.Sprintf("claims=%d", held), func(b *testing.B) {
			srv := etcdtest.Start(b)
			n := join(b, srv.Endpoints(), "a")
			ctx := ctxT(b)
			for i := range held {
				if _, err := n.Claim(ctx, fmt.Sprintf("v-%d", i), ForUser("ann")); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				n.verify()
			}
			b.StopTimer()
			for i := range held {
				c, err := n.Claim(ctx, fmt.Sprintf("v-%d", i))
				if err != nil || c.Check() != nil {
					b.Fatalf("claim v-%d after verify: %v", i, err)
				}
			}
		})
	}
}

// BenchmarkOwner is the owner lookup of routing: two etcd reads (exact),
// or a hit of the cache.
func BenchmarkOwner(b *testing.B) {
	srv := etcdtest.Start(b)
	a, n := join(b, srv.Endpoints(), "a"), join(b, srv.Endpoints(), "b")
	ctx := ctxT(b)
	if _, err := a.Claim(ctx, "s"); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		lookup func() (Member, bool, error)
	}{
		{"exact", func() (Member, bool, error) { return n.Owner(ctx, "s") }},
		{"cached", func() (Member, bool, error) { return n.CachedOwner(ctx, "s") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if m, ok, err := bc.lookup(); err != nil || !ok || m.Node != "a" {
					b.Fatalf("owner: %+v %v %v", m, ok, err)
				}
			}
		})
	}
}
