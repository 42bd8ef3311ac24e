// Package cluster coordinates replhost nodes through etcd: membership held
// by a lease per node, ownership of a session by a lease-held key whose
// create revision is the fence, the placement of new sessions, and counts
// across the cluster. It knows nothing of SSH or sessions' contents.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// Config says how a node joins the cluster.
type Config struct {
	Endpoints []string      // etcd client URLs; required
	Node      string        // this node's name, unique in the cluster; required
	Advertise string        // host:port other nodes reach this one at; required
	TTL       time.Duration // the lease's time to live; zero: 10s (etcd grants whole seconds, at least its minimum, 2s by default)
	Prefix    string        // prefix of every key; zero: "/replhost/"
	// Margin is how long before the lease could expire that Check starts
	// failing: a journal write begun after a passing Check must end within
	// it. Zero: TTL/5; below TTL/2.
	Margin time.Duration
}

// Member is a node as the cluster sees it.
type Member struct {
	Node      string
	Advertise string
	Sessions  int  // sessions it owns (filled by Members)
	Draining  bool // it takes no new sessions
}

var (
	// ErrClosed is a call on a closed Node.
	ErrClosed = errors.New("cluster: node closed")
	// ErrLost is a claim that is no longer this node's: released, its key
	// gone or taken, or the node's lease lost. Claim again (and reload the
	// session from its journal: another node may have run it meanwhile).
	ErrLost = errors.New("cluster: session claim lost")
	// ErrUnconfirmed is a claim this node cannot prove it still holds: etcd
	// has not confirmed the lease recently enough. It passes again once
	// etcd confirms the same lease.
	ErrUnconfirmed = errors.New("cluster: etcd unreachable, ownership unconfirmed")
	// ErrNodeInUse is a Join under a name a live member already has.
	ErrNodeInUse = errors.New("cluster: node name in use by a live member")
)

// callTimeout bounds one request of the node's own loops to etcd.
const callTimeout = 5 * time.Second

// Node is this process's membership in the cluster. Its methods are safe
// for concurrent use.
type Node struct {
	cfg   Config
	keys  keys
	cli   *clientv3.Client
	start time.Time // base of deadline; its monotonic reading is used

	// lease is the current lease; deadline is when it stops being proven
	// alive (nanoseconds since start), read without a lock by Check.
	lease    atomic.Int64
	deadline atomic.Int64

	ctx  context.Context // ends at Close; the keepalive loop's lifetime
	stop context.CancelFunc
	done chan struct{} // closed when the keepalive loop returned

	mu         sync.Mutex    // guards the fields below
	ttl        time.Duration // granted by etcd
	margin     time.Duration
	lost       chan struct{} // this epoch's Lost channel
	lostClosed bool
	lostTimer  *time.Timer
	claims     map[string]*Claim // held claims by session id
	releases   []*Claim          // released claims whose keys could not be deleted yet
	draining   bool
	closed     bool

	owners ownerCache // CachedOwner's
}

// Join registers this node under a new lease and keeps the lease alive
// until Close. If a live member already has the name (a previous run whose
// lease has not expired yet), Join waits for it to go until ctx ends.
func Join(ctx context.Context, cfg Config) (*Node, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("cluster: no etcd endpoints")
	}
	if err := checkName("node name", cfg.Node); err != nil {
		return nil, err
	}
	if cfg.Advertise == "" {
		return nil, errors.New("cluster: no advertise address")
	}
	if cfg.TTL == 0 {
		cfg.TTL = 10 * time.Second
	}
	if cfg.TTL < time.Second {
		return nil, fmt.Errorf("cluster: TTL %v below 1s", cfg.TTL)
	}
	if cfg.Margin < 0 || cfg.Margin >= cfg.TTL/2 {
		return nil, fmt.Errorf("cluster: margin %v not in [0, TTL/2)", cfg.Margin)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/replhost/"
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		DialTimeout: callTimeout,
		Logger:      zap.NewNop(),
		// gRPC's default reconnect backoff grows to 2 minutes: a node must
		// find etcd again within its lease's TTL.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 2 * time.Second,
		})},
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd client: %w", err)
	}
	n := &Node{cfg: cfg, keys: keys{cfg.Prefix}, cli: cli, start: time.Now(),
		lost: make(chan struct{}), claims: map[string]*Claim{}, done: make(chan struct{})}
	n.ctx, n.stop = context.WithCancel(context.Background())
	n.lostTimer = time.AfterFunc(time.Hour, n.expire)
	if err := n.register(ctx, true); err != nil {
		n.stop()
		n.lostTimer.Stop()
		cli.Close()
		return nil, err
	}
	go n.run()
	return n, nil
}

// Name is the node's name.
func (n *Node) Name() string { return n.cfg.Node }

// Lost is closed when this node can no longer prove its lease is alive
// (etcd unreachable past the deadline, lease expired, or Close). Claims
// fail Check from then on. A node that proves its lease again, or joins
// anew under a new lease, starts a new epoch: call Lost again for it.
func (n *Node) Lost() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lost
}

// Drain marks the node draining: Place gives it no new sessions. Its
// claims stay until released.
func (n *Node) Drain(ctx context.Context) error {
	n.mu.Lock()
	n.draining = true
	n.mu.Unlock()
	lease := clientv3.LeaseID(n.lease.Load())
	key := n.keys.member(n.cfg.Node)
	resp, err := n.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.LeaseValue(key), "=", lease)).
		Then(clientv3.OpPut(key, encodeMember(memberValue{Advertise: n.cfg.Advertise, Draining: true}), clientv3.WithLease(lease))).
		Commit()
	if err != nil {
		return fmt.Errorf("cluster: drain: %w", err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("cluster: drain: %w", ErrUnconfirmed) // re-joining: it registers as draining
	}
	return nil
}

// Close leaves the cluster: it stops the keepalives and revokes the lease,
// which deletes the member and every claim of this node at once. Safe to
// repeat.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.stop()
	<-n.done
	n.lostTimer.Stop()
	n.deadline.Store(0)
	n.mu.Lock()
	for id, c := range n.claims {
		c.lost.Store(true)
		delete(n.claims, id)
	}
	n.closeLostLocked()
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err := n.cli.Revoke(ctx, clientv3.LeaseID(n.lease.Load()))
	cancel()
	if cerr := n.cli.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("cluster: close: %w", err)
	}
	return nil
}

// register grants a lease and creates the member key under it. With wait,
// a name held by another lease is retried until ctx ends.
func (n *Node) register(ctx context.Context, wait bool) error {
	for {
		err := n.tryRegister(ctx)
		if err == nil || !errors.Is(err, ErrNodeInUse) || !wait {
			return err
		}
		select { // pacing of retries while the old lease runs out
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: %w", ErrNodeInUse, n.cfg.Node, ctx.Err())
		case <-time.After(n.cfg.TTL / 4):
		}
	}
}

func (n *Node) tryRegister(ctx context.Context) error {
	sent := time.Since(n.start)
	g, err := n.cli.Grant(ctx, int64((n.cfg.TTL+time.Second-1)/time.Second))
	if err != nil {
		return fmt.Errorf("cluster: grant lease: %w", err)
	}
	n.mu.Lock()
	draining := n.draining
	n.mu.Unlock()
	key := n.keys.member(n.cfg.Node)
	resp, err := n.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, encodeMember(memberValue{Advertise: n.cfg.Advertise, Draining: draining}), clientv3.WithLease(g.ID))).
		Commit()
	if err == nil && !resp.Succeeded {
		err = fmt.Errorf("%w: %s", ErrNodeInUse, n.cfg.Node)
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		_, _ = n.cli.Revoke(rctx, g.ID)
		cancel()
		return err
	}
	ttl := time.Duration(g.TTL) * time.Second
	n.mu.Lock()
	n.ttl = ttl
	n.margin = n.cfg.Margin
	if n.margin == 0 {
		n.margin = ttl / 5
	}
	n.lease.Store(int64(g.ID))
	n.mu.Unlock()
	n.confirm(sent, ttl)
	return nil
}

// confirm records that the lease was alive when a request sent at sent
// (since start) reached etcd: it lives until at least sent+ttl, so
// ownership is proven until sent+ttl-margin. It starts a new Lost epoch if
// the last one had closed.
func (n *Node) confirm(sent, ttl time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	d := sent + ttl - n.margin
	n.deadline.Store(int64(d))
	n.lostTimer.Reset(d - time.Since(n.start))
	if n.lostClosed {
		n.lost, n.lostClosed = make(chan struct{}), false
	}
}

// confirmed says whether the lease is proven alive now.
func (n *Node) confirmed() bool { return int64(time.Since(n.start)) < n.deadline.Load() }

// expire runs at the deadline: unless a confirmation moved it, Lost closes.
func (n *Node) expire() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.confirmed() {
		n.closeLostLocked()
	}
}

func (n *Node) closeLostLocked() {
	if !n.lostClosed {
		close(n.lost)
		n.lostClosed = true
	}
}

// run keeps the lease alive: a keepalive every TTL/3, retried sooner when
// it fails, a re-join when etcd says the lease is gone, and the periodic
// check of the claims' keys after each confirmed beat.
func (n *Node) run() {
	defer close(n.done)
	n.mu.Lock()
	interval := n.ttl / 3
	n.mu.Unlock()
	wait := interval
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(wait):
		}
		lease := clientv3.LeaseID(n.lease.Load())
		sent := time.Since(n.start)
		ctx, cancel := context.WithTimeout(n.ctx, interval)
		resp, err := n.cli.KeepAliveOnce(ctx, lease)
		cancel()
		switch {
		case err == nil:
			n.confirm(sent, time.Duration(resp.TTL)*time.Second)
			n.verify()
			wait = interval
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			n.leaseLost(lease)
			n.rejoin()
			wait = interval
		default:
			wait = interval / 4 // etcd unreachable: try again soon
		}
	}
}

// leaseLost drops every claim of a lease etcd no longer has: their keys
// are gone and another node may have run their sessions since.
func (n *Node) leaseLost(lease clientv3.LeaseID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.deadline.Store(0)
	for id, c := range n.claims {
		if c.lease == lease {
			c.lost.Store(true)
			delete(n.claims, id)
		}
	}
	n.releases = nil // their keys went with the lease
	n.closeLostLocked()
}

// rejoin registers again under a new lease, retrying until Close.
func (n *Node) rejoin() {
	for {
		ctx, cancel := context.WithTimeout(n.ctx, callTimeout)
		err := n.tryRegister(ctx)
		cancel()
		if err == nil || n.ctx.Err() != nil {
			return
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(n.cfg.TTL / 4):
		}
	}
}
