package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// testTTL is short so that failover tests end quickly; it is etcd's
// minimum. Other tests use the default, which a loaded machine's pauses
// do not reach.
const testTTL = 2 * time.Second

// join starts a node on endpoints, closed at the end of the test.
func join(tb testing.TB, endpoints []string, name string) *Node {
	tb.Helper()
	return joinTTL(tb, endpoints, name, 0)
}

func joinTTL(tb testing.TB, endpoints []string, name string, ttl time.Duration) *Node {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Join(ctx, Config{Endpoints: endpoints, Node: name, Advertise: "127.0.0.1:" + name, TTL: ttl, Prefix: "/test/"})
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

func TestCountUserAndMembersAcrossNodes(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	var claims []*Claim
	for i, n := range []*Node{a, a, b, b, b} {
		c, err := n.Claim(ctxT(t), fmt.Sprintf("u-%d", i), ForUser("ann"))
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	if _, err := b.Claim(ctxT(t), "other", ForUser("bob")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*Node{a, b} {
		if got, err := n.CountUser(ctxT(t), "ann"); err != nil || got != 5 {
			t.Errorf("%s: CountUser(ann) = %d, %v; want 5", n.Name(), got, err)
		}
	}
	if err := claims[2].Release(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got, err := a.CountUser(ctxT(t), "ann"); err != nil || got != 4 {
		t.Errorf("after a release: CountUser(ann) = %d, %v; want 4", got, err)
	}
	if got, err := a.CountUser(ctxT(t), "nobody"); err != nil || got != 0 {
		t.Errorf("CountUser(nobody) = %d, %v; want 0", got, err)
	}
	ms, err := a.Members(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{{Node: "a", Advertise: "127.0.0.1:a", Sessions: 2}, {Node: "b", Advertise: "127.0.0.1:b", Sessions: 3}}
	if fmt.Sprint(ms) != fmt.Sprint(want) {
		t.Errorf("Members = %+v; want %+v", ms, want)
	}
}

func TestReleaseThenCheckFailsAndOtherNodeClaims(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	c, err := a.Claim(ctxT(t), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(); err != nil {
		t.Fatalf("Check of a fresh claim: %v", err)
	}
	again, err := a.Claim(ctxT(t), "s1")
	if err != nil || again != c {
		t.Errorf("second Claim on the owner = %p, %v; want the held claim %p", again, err, c)
	}
	if err := c.Release(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctxT(t)); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if err := c.Check(); !errors.Is(err, ErrLost) {
		t.Errorf("Check after Release = %v; want ErrLost", err)
	}
	if _, ok, err := b.Owner(ctxT(t), "s1"); ok || err != nil {
		t.Errorf("Owner after Release = %v, %v; want none", ok, err)
	}
	cb, err := b.Claim(ctxT(t), "s1")
	if err != nil {
		t.Fatalf("claim by b after release: %v", err)
	}
	if cb.Fence() <= c.Fence() {
		t.Errorf("fence of the next owner %d; want above %d", cb.Fence(), c.Fence())
	}
}

func TestDrainedNodeGetsNoPlacement(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	if err := a.Drain(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	ms, err := b.Members(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || !ms[0].Draining || ms[1].Draining {
		t.Fatalf("Members = %+v; want a draining, b not", ms)
	}
	for i := 0; i < 200; i++ {
		if got := b.Place(fmt.Sprintf("user%d", i), ms); got.Node != "b" {
			t.Fatalf("Place(user%d) = %q; want b (a drains)", i, got.Node)
		}
	}
}

func TestJoinUnderALiveNameIsRefused(t *testing.T) {
	srv := etcdtest.Start(t)
	join(t, srv.Endpoints(), "a")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, err := Join(ctx, Config{Endpoints: srv.Endpoints(), Node: "a", Advertise: "x:1", Prefix: "/test/"})
	if !errors.Is(err, ErrNodeInUse) {
		n.Close()
		t.Fatalf("second Join of a = %v; want ErrNodeInUse", err)
	}
}

func TestBadNamesAndConfigsAreRefused(t *testing.T) {
	srv := etcdtest.Start(t)
	a := join(t, srv.Endpoints(), "a")
	for _, id := range []string{"", "a/b", "sp ace", "nl\n", string(make([]byte, maxName+1))} {
		if _, err := a.Claim(ctxT(t), id); err == nil {
			t.Errorf("Claim(%q) succeeded; want an invalid-id error", id)
		}
	}
	if _, err := a.Claim(ctxT(t), "ok", ForUser("../x")); err == nil {
		t.Errorf("Claim ForUser(../x) succeeded; want an invalid-user error")
	}
	for _, cfg := range []Config{
		{Endpoints: srv.Endpoints(), Node: "x/y", Advertise: "h:1"},
		{Endpoints: srv.Endpoints(), Node: "x", Advertise: ""},
		{Endpoints: nil, Node: "x", Advertise: "h:1"},
		{Endpoints: srv.Endpoints(), Node: "x", Advertise: "h:1", TTL: 500 * time.Millisecond},
		{Endpoints: srv.Endpoints(), Node: "x", Advertise: "h:1", Margin: 5 * time.Second},
	} {
		if n, err := Join(ctxT(t), cfg); err == nil {
			n.Close()
			t.Errorf("Join(%+v) succeeded; want a config error", cfg)
		}
	}
}

func Test300SessionsOverThreeNodes(t *testing.T) {
	srv := etcdtest.Start(t)
	nodes := map[string]*Node{}
	for _, name := range []string{"n1", "n2", "n3"} {
		nodes[name] = join(t, srv.Endpoints(), name)
	}
	ms, err := nodes["n1"].Members(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 300; i++ {
		user := fmt.Sprintf("user%d", i%60)
		n := nodes[nodes["n1"].Place(user, ms).Node]
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := n.Claim(ctxT(t), fmt.Sprintf("sess-%03d", i), ForUser(user))
			if err != nil {
				t.Errorf("claim %d on %s: %v", i, n.Name(), err)
				return
			}
			if err := c.Check(); err != nil {
				t.Errorf("check %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	ms, err = nodes["n2"].Members(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range ms {
		if m.Sessions == 0 {
			t.Errorf("node %s got no sessions: %+v", m.Node, ms)
		}
		total += m.Sessions
	}
	if total != 300 || len(ms) != 3 {
		t.Errorf("members %+v hold %d sessions; want 3 nodes, 300", ms, total)
	}
	if got, err := nodes["n3"].CountUser(ctxT(t), "user7"); err != nil || got != 5 {
		t.Errorf("CountUser(user7) = %d, %v; want 5", got, err)
	}
}

// A Claim whose reply was lost (etcd applied it, the caller's context
// ended) leaves the key under the node's lease; claiming again adopts it.
func TestClaimAdoptsAKeyOfItsOwnLease(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	put, err := a.cli.Put(ctxT(t), a.keys.session("s"), "a", clientv3.WithLease(clientv3.LeaseID(a.lease.Load())))
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Claim(ctxT(t), "s")
	if err != nil {
		t.Fatalf("claim of a key under a's own lease: %v", err)
	}
	if c.Fence() != put.Header.Revision {
		t.Errorf("fence %d; want the key's create revision %d", c.Fence(), put.Header.Revision)
	}
	if err := c.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	// The same name under another lease is not adopted.
	if _, err := b.cli.Put(ctxT(t), b.keys.session("t"), "a", clientv3.WithLease(clientv3.LeaseID(b.lease.Load()))); err != nil {
		t.Fatal(err)
	}
	var oe *OwnedError
	if _, err := a.Claim(ctxT(t), "t"); !errors.As(err, &oe) {
		t.Errorf("claim of a key under another lease = %v; want OwnedError", err)
	}
}

// EndUser of one node reaches every node watching, itself included, and
// again after etcd was restarted.
func TestEndUserReachesEveryNode(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	wa, err := a.EndedUsers(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	wb, err := b.EndedUsers(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.EndUser(ctxT(t), "bob"); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]<-chan string{"a": wa, "b": wb} {
		if got := <-w; got != "bob" {
			t.Errorf("node %s heard %q; want bob", name, got)
		}
	}
	if err := a.EndUser(ctxT(t), "no/slash"); err == nil {
		t.Errorf("EndUser of an invalid name: nil; want an error")
	}
	srv.Restart()
	for {
		err := b.EndUser(ctxT(t), "carol")
		if err == nil {
			break
		}
		t.Logf("EndUser while etcd comes back: %v", err)
	}
	for name, w := range map[string]<-chan string{"a": wa, "b": wb} {
		if got := <-w; got != "carol" {
			t.Errorf("after the restart node %s heard %q; want carol", name, got)
		}
	}
}

// CachedOwner answers from memory what it read, until the watch sees the
// owner's key or member change: a release, a new claim, a drain.
func TestCachedOwnerFollowsChanges(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	ca, err := a.Claim(ctxT(t), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok, err := b.CachedOwner(ctxT(t), "s1"); err != nil || !ok || m.Node != "a" || m.Advertise != "127.0.0.1:a" {
		t.Fatalf("CachedOwner = %+v %v %v; want a", m, ok, err)
	}
	if !b.cachedOwner("s1") {
		t.Fatalf("s1's owner not cached after a read")
	}
	if _, ok, _ := b.CachedOwner(ctxT(t), "none"); ok || b.cachedOwner("none") {
		t.Errorf("a session without owner: owned %v, cached %v; want neither", ok, b.cachedOwner("none"))
	}
	if err := ca.Release(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the release drops the cached owner", func() bool { return !b.cachedOwner("s1") })
	if _, ok, err := b.CachedOwner(ctxT(t), "s1"); ok || err != nil {
		t.Errorf("CachedOwner after release = %v %v; want none", ok, err)
	}
	if _, err := b.Claim(ctxT(t), "s1"); err != nil {
		t.Fatal(err)
	}
	if m, ok, err := a.CachedOwner(ctxT(t), "s1"); err != nil || !ok || m.Node != "b" {
		t.Fatalf("CachedOwner through a = %+v %v %v; want b", m, ok, err)
	}
	if err := b.Drain(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "a drain drops the owner's cached entries", func() bool { return !a.cachedOwner("s1") })
	if m, ok, err := a.CachedOwner(ctxT(t), "s1"); err != nil || !ok || !m.Draining {
		t.Errorf("CachedOwner after the drain = %+v %v %v; want b, draining", m, ok, err)
	}
}
