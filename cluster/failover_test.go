package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/etcdtest"
	"go.uber.org/goleak"
)

// failoverBound is how long the tests wait for a dead node's claims to
// become claimable: the 30 s; the lease's TTL is 2 s.
const failoverBound = 30 * time.Second

// childEnv carries etcd's endpoint to the child node of TestKilledNode.
const childEnv = "CLUSTER_TEST_CHILD_ETCD"

func TestMain(m *testing.M) {
	if ep := os.Getenv(childEnv); ep != "" {
		os.Exit(childNode(ep))
	}
	goleak.VerifyTestMain(m)
}

// childNode joins as "victim", claims the sessions named on stdin's first
// line, says "claimed" and waits to be killed.
func childNode(endpoint string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Join(ctx, Config{Endpoints: []string{endpoint}, Node: "victim", Advertise: "127.0.0.1:9", TTL: testTTL, Prefix: "/test/"})
	if err != nil {
		fmt.Println("join:", err)
		return 1
	}
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	for _, id := range strings.Fields(in.Text()) {
		if _, err := n.Claim(ctx, id, ForUser("ann")); err != nil {
			fmt.Println("claim:", err)
			return 1
		}
	}
	fmt.Println("claimed")
	in.Scan() // until killed
	return 0
}

// claimWithin retries Claim until it succeeds (the old owner's lease runs
// out) or the bound passes; it returns the claim and when it succeeded.
func claimWithin(tb testing.TB, n *Node, id string) (*Claim, time.Time) {
	tb.Helper()
	var c *Claim
	eventually(tb, failoverBound, "claim "+id+" on "+n.Name(), func() bool {
		var err error
		c, err = n.Claim(ctxT(tb), id)
		var oe *OwnedError
		if err != nil && !errors.As(err, &oe) {
			tb.Logf("claim %s: %v", id, err)
		}
		return err == nil
	})
	return c, time.Now()
}

func TestKilledNodesClaimsPassToAnother(t *testing.T) {
	srv := etcdtest.Start(t)
	b := join(t, srv.Endpoints(), "b")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+srv.Endpoints()[0])
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	fmt.Fprintln(stdin, "k1 k2 k3")
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "claimed\n" {
		t.Fatalf("child node: %q", line)
	}
	var oe *OwnedError
	if _, err := b.Claim(ctxT(t), "k1"); !errors.As(err, &oe) || oe.Owner.Node != "victim" || oe.Owner.Advertise != "127.0.0.1:9" {
		t.Fatalf("claim of a live node's session = %v; want OwnedError naming victim", err)
	}
	if got, err := b.CountUser(ctxT(t), "ann"); err != nil || got != 3 {
		t.Errorf("CountUser(ann) = %d, %v; want 3", got, err)
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, id := range []string{"k1", "k2", "k3"} {
		_, at := claimWithin(t, b, id)
		t.Logf("%s claimable %v after SIGKILL", id, at.Sub(killed).Round(10*time.Millisecond))
	}
	ms, err := b.Members(ctxT(t))
	if err != nil || len(ms) != 1 || ms[0].Node != "b" || ms[0].Sessions != 3 {
		t.Errorf("Members = %+v, %v; want b alone with 3 sessions", ms, err)
	}
	if got, err := b.CountUser(ctxT(t), "ann"); err != nil || got != 0 {
		t.Errorf("CountUser(ann) after victim died = %d, %v; want 0 (b claimed without a user)", got, err)
	}
}

func TestClosedNodesClaimsAreFreeAtOnce(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := join(t, srv.Endpoints(), "a"), join(t, srv.Endpoints(), "b")
	c, err := a.Claim(ctxT(t), "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Lost():
	default:
		t.Error("Lost not closed after Close")
	}
	if err := c.Check(); !errors.Is(err, ErrLost) {
		t.Errorf("Check after Close = %v; want ErrLost", err)
	}
	if _, err := a.Claim(ctxT(t), "t"); !errors.Is(err, ErrClosed) {
		t.Errorf("Claim after Close = %v; want ErrClosed", err)
	}
	// Close revoked the lease: no waiting for it to expire.
	if _, err := b.Claim(ctxT(t), "s"); err != nil {
		t.Errorf("claim of a closed node's session: %v", err)
	}
}

// A node cut off from etcd must stop writing before its lease can expire
// and another node take its session over.
func TestCutOffNodeStopsBeforeTakeover(t *testing.T) {
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv.Addr())
	a := joinTTL(t, proxy.Endpoints(), "a", testTTL)
	b := join(t, srv.Endpoints(), "b")
	ca, err := a.Claim(ctxT(t), "s")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, failoverBound, "Check passes", func() bool { return ca.Check() == nil })
	lost := a.Lost()
	cut := time.Now()
	proxy.Cut()
	_, won := claimWithin(t, b, "s")
	if err := ca.Check(); err == nil {
		t.Fatal("cut-off node's Check passes after another node claimed its session")
	}
	// Check passes only before the node's deadline: every write it let
	// through happened before the takeover.
	stopped := a.start.Add(time.Duration(a.deadline.Load()))
	if !stopped.Before(won) {
		t.Errorf("cut-off node's Check passed until %v, after the takeover at %v", stopped, won)
	}
	select {
	case <-lost:
	default:
		t.Error("Lost not closed on the cut-off node")
	}
	t.Logf("cut at 0; a stopped at %v; b claimed at %v",
		stopped.Sub(cut).Round(10*time.Millisecond), won.Sub(cut).Round(10*time.Millisecond))

	// Back on the network: a learns its lease is gone, joins again under a
	// new one, and the lost claim stays lost.
	proxy.Restore()
	eventually(t, failoverBound, "a rejoins", func() bool {
		ms, err := b.Members(ctxT(t))
		return err == nil && len(ms) == 2
	})
	if err := ca.Check(); !errors.Is(err, ErrLost) {
		t.Errorf("old claim after the rejoin: %v; want ErrLost", err)
	}
	eventually(t, failoverBound, "a new Lost epoch", func() bool { return a.Lost() != lost })
	var oe *OwnedError
	if _, err := a.Claim(ctxT(t), "s"); !errors.As(err, &oe) || oe.Owner.Node != "b" {
		t.Errorf("a's claim after rejoining = %v; want OwnedError naming b", err)
	}
	if _, err := a.Claim(ctxT(t), "new"); err != nil {
		t.Errorf("a's new claim after rejoining: %v", err)
	}
}

// etcd restarted while nodes claim: the leases survive (etcd keeps them and
// renews them when it comes back), so do the claims.
func TestEtcdRestartKeepsMembersAndClaims(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := joinTTL(t, srv.Endpoints(), "a", testTTL), joinTTL(t, srv.Endpoints(), "b", testTTL)
	var held []*Claim
	for i := 0; i < 20; i++ {
		n := []*Node{a, b}[i%2]
		c, err := n.Claim(ctxT(t), fmt.Sprintf("r-%d", i), ForUser("ann"))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Load: claims and releases go on through the restart.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var afterOK atomic.Int64
	var restarted atomic.Bool
	for _, n := range []*Node{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				c, err := n.Claim(ctx, fmt.Sprintf("load-%s-%d", n.Name(), i))
				if err == nil {
					err = c.Release(ctx)
				}
				cancel()
				if err == nil && restarted.Load() {
					afterOK.Add(1)
				}
			}
		}()
	}
	lost := a.Lost()
	srv.Stop()
	down := time.Now()
	eventually(t, failoverBound, "Check fails while etcd is down", func() bool {
		return errors.Is(held[0].Check(), ErrUnconfirmed)
	})
	<-lost
	// An outage longer than the TTL: etcd renews every lease when it is
	// leader again, so the leases still survive it.
	eventually(t, failoverBound, "outage of two TTLs", func() bool { return time.Since(down) > 2*testTTL })
	srv.Restart()
	restarted.Store(true)
	eventually(t, failoverBound, "claims confirmed again", func() bool {
		for _, c := range held {
			if c.Check() != nil {
				return false
			}
		}
		return true
	})
	eventually(t, failoverBound, "load goes on", func() bool { return afterOK.Load() >= 10 })

	close(stop)
	wg.Wait()
	ms, err := a.Members(ctxT(t))
	// At least: a load claim whose reply was lost in the outage stays
	// (Claim of the same id adopts it) until its node goes.
	if err != nil || len(ms) != 2 || ms[0].Sessions < 10 || ms[1].Sessions < 10 {
		t.Errorf("Members after restart = %+v, %v; want a and b with 10 sessions or more each", ms, err)
	}
	for i, c := range held {
		m, ok, err := b.Owner(ctxT(t), c.ID())
		if want := []string{"a", "b"}[i%2]; err != nil || !ok || m.Node != want {
			t.Errorf("Owner(%s) = %+v, %v, %v; want %s", c.ID(), m, ok, err, want)
		}
	}
	if got, err := b.CountUser(ctxT(t), "ann"); err != nil || got != 20 {
		t.Errorf("CountUser(ann) = %d, %v; want 20", got, err)
	}
}

// A claim whose key was deleted behind the node's back (an operator, a
// bug) is found by the periodic compare and fails Check.
func TestDeletedKeyFailsCheck(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := joinTTL(t, srv.Endpoints(), "a", testTTL), join(t, srv.Endpoints(), "b")
	c, err := a.Claim(ctxT(t), "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.cli.Delete(ctxT(t), b.keys.session("s")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctxT(t), "s"); err != nil {
		t.Fatal(err)
	}
	eventually(t, failoverBound, "Check fails", func() bool { return errors.Is(c.Check(), ErrLost) })
}

// A Release that cannot reach etcd is retried in the background: the
// session becomes claimable elsewhere while its old owner lives on.
func TestFailedReleaseIsRetried(t *testing.T) {
	srv := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, srv.Addr())
	// The default TTL, 10 s: the short cut below must not cost a its lease,
	// or the keys would go with the lease and prove nothing.
	a := join(t, proxy.Endpoints(), "a")
	b := join(t, srv.Endpoints(), "b")
	c, err := a.Claim(ctxT(t), "s")
	if err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err = c.Release(ctx)
	cancel()
	proxy.Restore()
	if err == nil {
		t.Fatal("Release through a cut network succeeded")
	}
	if err := c.Check(); !errors.Is(err, ErrLost) {
		t.Errorf("Check after a failed Release = %v; want ErrLost", err)
	}
	claimWithin(t, b, "s")
	if ms, err := b.Members(ctxT(t)); err != nil || len(ms) != 2 {
		t.Errorf("Members = %+v, %v; want a still alive beside b", ms, err)
	}
}
