package sshd_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/internal/testhost"
)

// etcd SIGKILLed and restarted while cells run through three nodes: cells
// may be refused meanwhile, but afterwards every session answers through
// every node with all its definitions.
func TestClusterEtcdRestartUnderLoadLosesNoSession(t *testing.T) {
	etcd := etcdtest.Start(t)
	var names []string
	for i := range 6 {
		names = append(names, fmt.Sprintf("u%d", i))
	}
	r := newSharedRoot(t, names...)
	nodes := []*clusterNode{
		startNode(t, r, etcd.Endpoints(), "n1"),
		startNode(t, r, etcd.Endpoints(), "n2"),
		startNode(t, r, etcd.Endpoints(), "n3"),
	}
	ids := make([]string, len(names))
	for i, u := range names {
		ids[i] = testhost.NewSession(t, r.dial(t, nodes[i%3], u))
		if res := r.run(t, nodes[(i+1)%3], u, fmt.Sprintf("eval --session %s x := %d", ids[i], i), ""); res.Status != 0 {
			t.Fatalf("define in %s: %+v", ids[i], res)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var ran atomic.Int64
	for i, u := range names { // the load: cells through every node meanwhile
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				if res := r.run(t, nodes[k%3], u, "eval --session "+ids[i]+" x", ""); res.Status == 0 {
					ran.Add(1)
				}
			}
		}()
	}
	etcd.Restart()
	close(stop)
	wg.Wait()
	t.Logf("%d cells ran during the restart", ran.Load())
	deadline := time.Now().Add(30 * time.Second)
	for i, u := range names {
		for k, n := range nodes {
			want := fmt.Sprintf("%d\n", i)
			for {
				res := r.run(t, n, u, "eval --session "+ids[i]+" x", "")
				if res.Status == 0 && res.Stdout == want {
					break
				}
				// Until a node proves its lease again it refuses logins;
				// a cell of a session being handed off is refused too.
				transient := strings.Contains(res.Stderr, "cut off from the cluster") || strings.Contains(res.Stderr, "moved to another node") ||
					strings.Contains(res.Stderr, "cannot be reached")
				if !transient || time.Now().After(deadline) {
					t.Fatalf("session %d through n%d after the restart: %+v; want %q", i, k+1, res, want)
				}
			}
		}
	}
}
