package sshd_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/internal/testhost"
)

// sftp through node 2 reaches the user's sessions wherever they live: one
// made through node 1 (owned there), one on node 2, one on node 3. All are
// listed; a file is uploaded into node 1's session, listed and downloaded
// through node 2, and seen by node 3's artifacts ls; no session moves.
func TestClusterSFTPReachesSessionsOfEveryNode(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice", "bob")
	n1 := startNode(t, r, etcd.Endpoints(), "n1") // alone: it gets the session
	s1 := testhost.NewSession(t, r.dial(t, n1, "alice"))
	n2 := startNode(t, r, etcd.Endpoints(), "n2")
	n3 := startNode(t, r, etcd.Endpoints(), "n3")
	nodes := []*clusterNode{n1, n2, n3}
	ids := map[string]string{s1: "n1"}
	for _, n := range []*clusterNode{n2, n3} {
		s, err := n.Manager.Create(context.Background(), "alice")
		if err != nil {
			t.Fatalf("create on %s: %v", n.name, err)
		}
		ids[s.ID()] = n.name
		n.Manager.Release(s)
	}
	bobs := testhost.NewSession(t, r.dial(t, n1, "bob"))
	for id, want := range ids {
		if got, _ := owner(t, n1, id); got != want {
			t.Fatalf("session %s owned by %q; want %s", id, got, want)
		}
	}

	fc, err := sftp.NewClient(r.dial(t, n2, "alice"))
	if err != nil {
		t.Fatalf("sftp through n2: %v", err)
	}
	defer fc.Close()
	fis, err := fc.ReadDir("/")
	if err != nil {
		t.Fatalf("ls / through n2: %v", err)
	}
	var got, want []string
	for _, fi := range fis {
		got = append(got, fi.Name())
	}
	for id := range ids {
		want = append(want, id)
	}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("ls / through n2: %v; want alice's three sessions %v", got, want)
	}
	if _, err := fc.Stat("/" + bobs); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat of bob's session through n2 as alice: %v; want not exist", err)
	}

	for id, home := range ids {
		p := "/" + id + "/files/hello-" + home + ".txt"
		w, err := fc.Create(p)
		if err != nil {
			t.Fatalf("sftp create %s (session on %s): %v", p, home, err)
		}
		w.Write([]byte("hello " + home))
		if err := w.Close(); err != nil {
			t.Fatalf("sftp close %s (session on %s): %v", p, home, err)
		}
		fis, err := fc.ReadDir("/" + id + "/files")
		if err != nil || len(fis) != 1 || fis[0].Name() != "hello-"+home+".txt" || fis[0].Size() != int64(len("hello "+home)) {
			t.Errorf("ls %s/files (on %s): %v %v; want the upload", id, home, fis, err)
		}
		f, err := fc.Open(p)
		if err != nil {
			t.Fatalf("sftp open %s: %v", p, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != "hello "+home {
			t.Errorf("sftp get %s: %q %v; want %q", p, b, err, "hello "+home)
		}
		if res := r.run(t, n3, "alice", "artifacts ls --session "+id, ""); res.Status != 0 || !strings.Contains(res.Stdout, "files/hello-"+home+".txt ") {
			t.Errorf("artifacts ls through n3 of the session on %s: %+v; want the sftp upload", home, res)
		}
	}
	// A refusal of the owner node reaches the client's stderr-less sftp as
	// a status, and nothing is left.
	if w, err := fc.Create("/" + s1 + "/archives/x.rar"); err == nil {
		w.Write([]byte("x"))
		if err := w.Close(); err == nil {
			t.Errorf("an archive of an unknown type through n2 into n1's session: committed; want a refusal")
		}
	}
	if _, err := fc.Stat("/" + s1 + "/archives/x.rar"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refused upload visible: %v", err)
	}
	// Every session stayed on its node, loaded only there.
	for id, home := range ids {
		if got, _ := owner(t, n2, id); got != home {
			t.Errorf("session %s moved from %s to %q through sftp", id, home, got)
		}
		for _, n := range nodes {
			if n.name != home && n.Manager.Owns(id) {
				t.Errorf("node %s holds the claim of %s's session %s", n.name, home, id)
			}
		}
	}
}

// An sftp connection that reached a session on another node goes on when
// that node stops: the session is released, and the next requests find it
// ownerless and serve it here (failover through sftp) with its files.
func TestClusterSFTPFollowsSessionWhenOwnerStops(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice")
	n1 := startNode(t, r, etcd.Endpoints(), "n1") // alone: it gets the session
	id := testhost.NewSession(t, r.dial(t, n1, "alice"))
	n2 := startNode(t, r, etcd.Endpoints(), "n2")
	fc, err := sftp.NewClient(r.dial(t, n2, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	p := "/" + id + "/files/kept.txt"
	w, err := fc.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("kept"))
	if err := w.Close(); err != nil {
		t.Fatalf("upload into n1's session through n2: %v", err)
	}
	n1.Stop()
	// The connection to n1 ends under the client: a request in flight at
	// that moment fails once; the next ones find the session here.
	var b []byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := fc.Open(p)
		if err == nil {
			b, err = io.ReadAll(f)
			f.Close()
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after n1 stopped, get through n2: %v", err)
		}
		<-time.After(20 * time.Millisecond) // polling pace; no ordering rests on it
	}
	if string(b) != "kept" {
		t.Errorf("after n1 stopped: %q; want kept", b)
	}
	if got, _ := owner(t, n2, id); got != "n2" {
		t.Errorf("owner after the failover through sftp: %q; want n2", got)
	}
}
