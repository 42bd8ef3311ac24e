package sshd_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/internal/testhost"
)

// A session made through node 1 is used through nodes 2 and 3 (a
// definition, an artifact, a UDF, sftp) and runs on one node only.
func TestClusterSessionUsedThroughEveryNode(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice")
	nodes := []*clusterNode{
		startNode(t, r, etcd.Endpoints(), "n1"),
		startNode(t, r, etcd.Endpoints(), "n2"),
		startNode(t, r, etcd.Endpoints(), "n3"),
	}
	res := r.run(t, nodes[0], "alice", "new", "")
	id := strings.TrimSpace(res.Stdout)
	if res.Status != 0 || len(id) != 36 {
		t.Fatalf("new through n1: %+v", res)
	}
	home, ok := owner(t, nodes[0], id)
	if !ok {
		t.Fatalf("session %s has no owner in etcd", id)
	}
	steps := []struct {
		node       int
		cmd, stdin string
		want       string
	}{
		{0, "eval --session " + id + ` x := 41; import "udf"; import "strings"; udf.Register("up", strings.ToUpper)`, "", ""},
		{1, "eval --session " + id + " x + 1", "", "42\n"},
		{2, "artifacts add --session " + id + " files/greet.txt", "hello", ""},
		{1, "artifacts ls --session " + id, "", "files/greet.txt 5 "},
		{2, "udf call --session " + id + " up", "a\nb\n", "A\nB\n"},
	}
	for i, s := range steps {
		got := r.run(t, nodes[s.node], "alice", s.cmd, s.stdin)
		if got.Status != 0 || !strings.HasPrefix(got.Stdout, s.want) {
			t.Fatalf("step %d through n%d: %q: %+v; want status 0 and stdout %q", i, s.node+1, s.cmd, got, s.want)
		}
	}
	// sftp through node 2: read the artifact, write another.
	c := r.dial(t, nodes[1], "alice")
	fc, err := sftp.NewClient(c)
	if err != nil {
		t.Fatalf("sftp through n2: %v", err)
	}
	f, err := fc.Open("/" + id + "/files/greet.txt")
	if err != nil {
		t.Fatalf("sftp open: %v", err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "hello" {
		t.Errorf("sftp read %q; want hello", b)
	}
	w, err := fc.Create("/" + id + "/files/more.txt")
	if err != nil {
		t.Fatalf("sftp create: %v", err)
	}
	w.Write([]byte("more"))
	if err := w.Close(); err != nil {
		t.Fatalf("sftp close: %v", err)
	}
	fc.Close()
	got := r.run(t, nodes[2], "alice", "artifacts ls --session "+id, "")
	if !strings.Contains(got.Stdout, "files/more.txt 4 ") {
		t.Errorf("artifacts ls through n3 after sftp put: %+v; want files/more.txt", got)
	}
	// A terminal attached through a node that is not the owner: the
	// prompt, the session's state, a window change, Ctrl-D detaches.
	via := nodes[0]
	for _, n := range nodes {
		if n.name != home {
			via = n
		}
	}
	term := testhost.OpenTerm(t, r.dial(t, via, "alice"), "attach "+id)
	term.Expect(`go> `)
	term.Send("x\r")
	term.Expect(`\r\n41\r\n`)
	term.Send("\x04")
	if code := term.Wait(); code != 0 {
		t.Errorf("detach through %s: status %d; want 0", via.name, code)
	}
	// It ran on one node, the same all along.
	if now, _ := owner(t, nodes[2], id); now != home {
		t.Errorf("owner moved from %s to %s without a failover", home, now)
	}
	for _, n := range nodes {
		if loaded(n, id) != (n.name == home) {
			t.Errorf("node %s has the session loaded: %v; owner is %s", n.name, loaded(n, id), home)
		}
	}
}

// A node that crashes (its lease revoked, nothing saved) loses its
// sessions to two nodes racing to restore one: exactly one wins and runs
// it, the other routes to the winner, both give the journal's state.
func TestClusterRaceOfTwoNodesRestoringOneSession(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice")
	n1 := startNode(t, r, etcd.Endpoints(), "n1") // alone: it gets the session
	id := testhost.NewSession(t, r.dial(t, n1, "alice"))
	if res := r.run(t, n1, "alice", "eval --session "+id+" x := 41", ""); res.Status != 0 {
		t.Fatalf("define: %+v", res)
	}
	n2 := startNode(t, r, etcd.Endpoints(), "n2")
	n3 := startNode(t, r, etcd.Endpoints(), "n3")
	// The crash: the front door and the membership go, the manager saves nothing.
	n1.stopped = true
	n1.cancel()
	n1.Server.Close()
	n1.Node.Close()
	if _, ok := owner(t, n2, id); ok {
		t.Fatalf("session still owned after its node left")
	}
	var wg sync.WaitGroup
	results := make([]testhost.Result, 2)
	for i, n := range []*clusterNode{n2, n3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.run(t, n, "alice", "eval --session "+id+" x + 1", "")
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res.Status != 0 || res.Stdout != "42\n" {
			t.Errorf("racer %d: %+v; want 42", i+2, res)
		}
	}
	winner, ok := owner(t, n2, id)
	if !ok || (winner != "n2" && winner != "n3") {
		t.Fatalf("owner after the race: %q %v; want n2 or n3", winner, ok)
	}
	if loaded(n2, id) == loaded(n3, id) {
		t.Errorf("loaded on n2: %v, on n3: %v; want exactly one (%s)", loaded(n2, id), loaded(n3, id), winner)
	}
}

// 300 sessions of 30 users made through three nodes in turn, six at a
// time: no error, and every node runs some.
func TestCluster300SessionsSpread(t *testing.T) {
	etcd := etcdtest.Start(t)
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("u%02d", i))
	}
	r := newSharedRoot(t, names...)
	nodes := []*clusterNode{
		startNode(t, r, etcd.Endpoints(), "n1"),
		startNode(t, r, etcd.Endpoints(), "n2"),
		startNode(t, r, etcd.Endpoints(), "n3"),
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				user, n := names[j%len(names)], nodes[j%len(nodes)]
				res := r.run(t, n, user, "new", "")
				if res.Status != 0 || len(strings.TrimSpace(res.Stdout)) != 36 {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%d %s via %s: %+v", j, user, n.name, res))
					mu.Unlock()
				}
			}
		}()
	}
	for j := range 300 {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of 300 failed, first: %s", len(failures), failures[0])
	}
	total := 0
	for _, n := range nodes {
		c := n.Manager.Counts()
		here := c["detached"] + c["live"]
		total += here
		if here == 0 {
			t.Errorf("node %s runs no session", n.name)
		}
	}
	if total != 300 {
		t.Errorf("%d sessions run across the nodes; want 300", total)
	}
}

// A node cut off from etcd stops serving its sessions once it cannot prove
// its lease; after the lease expires another node restores them from the
// journal.
func TestClusterNodeCutFromEtcdStopsServing(t *testing.T) {
	etcd := etcdtest.Start(t)
	proxy := etcdtest.NewProxy(t, etcd.Addr())
	r := newSharedRoot(t, "alice")
	cut := startNode(t, r, proxy.Endpoints(), "n1")
	id := testhost.NewSession(t, r.dial(t, cut, "alice"))
	if res := r.run(t, cut, "alice", "eval --session "+id+" x := 41", ""); res.Status != 0 {
		t.Fatalf("define: %+v", res)
	}
	n2 := startNode(t, r, etcd.Endpoints(), "n2")
	lost := cut.Node.Lost()
	proxy.Cut()
	<-lost
	res := r.run(t, cut, "alice", "eval --session "+id+" x = 7", "")
	if res.Status == 0 {
		t.Errorf("cut node ran a cell of its session: %+v", res)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := owner(t, n2, id); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cut node's claim did not expire")
		}
		<-time.After(100 * time.Millisecond) // polls etcd for the expiry; no ordering rests on it
	}
	res = r.run(t, n2, "alice", "eval --session "+id+" x + 1", "")
	if res.Status != 0 || res.Stdout != "42\n" {
		t.Errorf("restored through n2: %+v; want 42 (x = 7 must not have been kept)", res)
	}
	if w, _ := owner(t, n2, id); w != "n2" {
		t.Errorf("owner %q; want n2", w)
	}
}
