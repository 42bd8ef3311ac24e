package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/etcdtest"
)

// testTTL is short so that failover tests end quickly; it is etcd's minimum.
const testTTL = 2 * time.Second

// join starts a node on endpoints, closed at the end of the test.
func join(tb testing.TB, endpoints []string, name string) *Node {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Join(ctx, Config{Endpoints: endpoints, Node: name, Advertise: "127.0.0.1:" + name, TTL: testTTL, Prefix: "/test/"})
	if err != nil {
		tb.Fatalf("join %s: %v", name, err)
	}
	tb.Cleanup(func() { n.Close() })
	return n
}

func ctxT(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds or the bound passes.
func eventually(tb testing.TB, bound time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(20 * time.Millisecond) // polling pace, not synchronisation
	}
}

func TestClaimRaceHasOneWinner(t *testing.T) {
	srv := etcdtest.Start(t)
	nodes := []*Node{join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")}
	for round := 0; round < 5; round++ {
		id := fmt.Sprintf("race-%d", round)
		var mu sync.Mutex
		winners := map[string]int64{} // node → fence
		var owned []*OwnedError
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			n := nodes[g%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := n.Claim(ctxT(t), id)
				mu.Lock()
				defer mu.Unlock()
				var oe *OwnedError
				switch {
				case err == nil:
					if f, ok := winners[n.Name()]; ok && f != c.Fence() {
						t.Errorf("node %s won twice with fences %d and %d", n.Name(), f, c.Fence())
					}
					winners[n.Name()] = c.Fence()
				case errors.As(err, &oe):
					owned = append(owned, oe)
				default:
					t.Errorf("claim: %v", err)
				}
			}()
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: winners %v; want exactly one node", round, winners)
		}
		var winner string
		for w := range winners {
			winner = w
		}
		if len(owned) != 8 {
			t.Errorf("round %d: %d OwnedErrors; want 8 (every call of the losing node)", round, len(owned))
		}
		for _, oe := range owned {
			if oe.Owner.Node != winner || oe.Owner.Advertise != "127.0.0.1:"+winner || oe.Session != id {
				t.Errorf("OwnedError %+v; want owner %s of %s", oe, winner, id)
			}
		}
		m, ok, err := nodes[0].Owner(ctxT(t), id)
		if err != nil || !ok || m.Node != winner {
			t.Errorf("Owner(%s) = %+v, %v, %v; want %s", id, m, ok, err, winner)
		}
	}
}
