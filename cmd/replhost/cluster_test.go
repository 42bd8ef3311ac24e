package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/etcdtest"
	"github.com/replhost/replhost/users"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// clusterSSH runs stock OpenSSH's ssh against the nodes of one root.
type clusterSSH struct {
	key, knownHosts string
}

func newClusterSSH(tb testing.TB, root string, nodes ...*hostProc) *clusterSSH {
	tb.Helper()
	hostKey, _, err := users.LoadOrCreateKey(filepath.Join(root, hostKeyFile), "")
	if err != nil {
		tb.Fatal(err)
	}
	var kh strings.Builder
	for _, n := range nodes {
		kh.WriteString(knownHostsLine("127.0.0.1", n.Port, hostKey))
	}
	c := &clusterSSH{key: filepath.Join(root, "users", "tester", "id_ed25519"), knownHosts: filepath.Join(tb.TempDir(), "known_hosts")}
	if err := os.WriteFile(c.knownHosts, []byte(kh.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return c
}

// run runs ssh to node n with command and stdin; it returns stdout,
// stderr and the exit status.
func (c *clusterSSH) run(tb testing.TB, n *hostProc, stdin, command string) (string, string, int) {
	tb.Helper()
	return c.tool(tb, stdin, "ssh", "-p", n.Port, "tester@127.0.0.1", command)
}

// tool runs OpenSSH's name (ssh, sftp, scp) with the cluster's options.
func (c *clusterSSH) tool(tb testing.TB, stdin, name string, args ...string) (string, string, int) {
	tb.Helper()
	opts := []string{"-i", c.key, "-o", "IdentitiesOnly=yes", "-o", "UserKnownHostsFile=" + c.knownHosts,
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"}
	cmd := exec.Command(name, append(opts, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), code
}

func startClusterNode(tb testing.TB, root string, etcd []string, name string) *hostProc {
	tb.Helper()
	return startHostProc(tb, root, "--isolation", "inproc", "--cluster-etcd", strings.Join(etcd, ","),
		"--node", name, "--cluster-ttl", "2s")
}

// Three replhost processes on one root and one etcd, driven with OpenSSH:
// a session made through node 1 is used through the others; its owner is
// SIGKILLed and another node restores it from the journal; that node is
// drained (replhost drain) and the third takes the session over.
func TestClusterProcessesFailoverAndDrain(t *testing.T) {
	needTool(t, "ssh")
	needTool(t, "sftp")
	needTool(t, "scp")
	etcd := etcdtest.Start(t)
	root := filepath.Join(t.TempDir(), "root")
	nodes := []*hostProc{startClusterNode(t, root, etcd.Endpoints(), "n1")} // first: it makes the user
	nodes = append(nodes, startClusterNode(t, root, etcd.Endpoints(), "n2"), startClusterNode(t, root, etcd.Endpoints(), "n3"))
	c := newClusterSSH(t, root, nodes...)
	// ROOT/ssh_config is the first node's; each node writes its own in
	// ROOT/nodes/NAME/, and it logs in there.
	if b, err := os.ReadFile(filepath.Join(root, "ssh_config")); err != nil || !strings.Contains(string(b), "Port "+nodes[0].Port+"\n") {
		t.Errorf("ROOT/ssh_config: %q %v; want n1's port %s (later nodes must not rewrite it)", b, err, nodes[0].Port)
	}
	for i, n := range nodes {
		cfg := filepath.Join(root, "nodes", fmt.Sprintf("n%d", i+1), "ssh_config")
		if b, err := os.ReadFile(cfg); err != nil || !strings.Contains(string(b), "Port "+n.Port+"\n") {
			t.Errorf("%s: %q %v; want port %s", cfg, b, err, n.Port)
		}
	}
	cfg := filepath.Join(root, "nodes", "n2", "ssh_config")
	if out, errs, code := c.tool(t, "", "ssh", "-F", cfg, "replhost", "eval", "2+3"); code != 0 || out != "5\n" {
		t.Errorf("ssh -F %s replhost eval 2+3: %q %q %d; want 5", cfg, out, errs, code)
	}
	out, errs, code := c.run(t, nodes[0], "", "new")
	id := strings.TrimSpace(out)
	if code != 0 || len(id) != 36 {
		t.Fatalf("new through n1: %q %q %d", out, errs, code)
	}
	if _, errs, code := c.run(t, nodes[1], "", "eval --session "+id+" x := 41"); code != 0 {
		t.Fatalf("define through n2: %q %d", errs, code)
	}
	home := ownerOf(t, etcd.Endpoints(), id)
	if out, errs, code := c.run(t, nodes[(home+2)%3], "", "eval --session "+id+" x + 1"); code != 0 || out != "42\n" {
		t.Fatalf("use through a third node: %q %q %d", out, errs, code)
	}
	// OpenSSH's scp and sftp through the nodes that do not own it.
	local := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(local, []byte("one,two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, third := nodes[(home+1)%3], nodes[(home+2)%3]
	if _, errs, code := c.tool(t, "", "scp", "-P", other.Port, local, "tester@127.0.0.1:/"+id+"/files/data.txt"); code != 0 {
		t.Fatalf("scp upload through a non-owner node: %q %d", errs, code)
	}
	batch := "ls -1 /" + id + "/files\nget /" + id + "/files/data.txt " + local + ".back\n"
	if out, errs, code := c.tool(t, batch, "sftp", "-P", third.Port, "-b", "-", "tester@127.0.0.1"); code != 0 || !strings.Contains(out, "/"+id+"/files/data.txt") {
		t.Fatalf("sftp ls and get through the third node: %q %q %d", out, errs, code)
	}
	if b, err := os.ReadFile(local + ".back"); err != nil || string(b) != "one,two\n" {
		t.Errorf("downloaded through the third node: %q %v; want the upload", b, err)
	}
	if got := ownerOf(t, etcd.Endpoints(), id); got != home {
		t.Errorf("after scp and sftp the session runs on n%d; want n%d, where it was", got+1, home+1)
	}

	nodes[home].Kill()
	via := nodes[(home+1)%3]
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	for {
		out, errs, code := c.run(t, via, "", "eval --session "+id+" x + 1")
		if code == 0 {
			if out != "42\n" {
				t.Fatalf("restored session: %q; want 42", out)
			}
			break
		}
		// Until the dead node's lease expires the session is still its.
		if !strings.Contains(errs, "cannot be reached") || time.Now().After(deadline) {
			t.Fatalf("after SIGKILL of n%d, through %s: %q %d", home+1, via.Addr, errs, code)
		}
	}
	t.Logf("failover: session usable again through another node %v after SIGKILL (lease TTL 2s)", time.Since(start).Round(time.Millisecond))
	heir := ownerOf(t, etcd.Endpoints(), id)
	if heir != (home+1)%3 {
		t.Fatalf("after failover n%d owns the session; want n%d, the node it was used through", heir+1, (home+1)%3+1)
	}

	var list, listErr bytes.Buffer
	if code := run([]string{"sessions", "--all", "--root", root, "--node", fmt.Sprintf("n%d", heir+1)}, &list, &listErr); code != 0 ||
		!strings.Contains(list.String(), id+" tester detached") {
		t.Errorf("sessions --all --node n%d: %d %q %q; want the session, detached", heir+1, code, list.String(), listErr.String())
	}
	var drainOut, drainErr bytes.Buffer
	if code := run([]string{"drain", "--root", root, "--node", fmt.Sprintf("n%d", heir+1)}, &drainOut, &drainErr); code != 0 {
		t.Fatalf("replhost drain: %d %s", code, drainErr.String())
	}
	if !strings.Contains(drainOut.String(), ": 1 detached sessions handed off") {
		t.Errorf("drain said %q; want 1 session handed off", drainOut.String())
	}
	last := 3 - home - heir
	if out, errs, code := c.run(t, nodes[heir], "", "eval --session "+id+" x + 1"); code != 0 || out != "42\n" {
		t.Fatalf("after drain, through the drained node: %q %q %d", out, errs, code)
	}
	if got := ownerOf(t, etcd.Endpoints(), id); got != last {
		t.Errorf("after drain the session runs on n%d; want n%d (the drained node takes none)", got+1, last+1)
	}
}

// ownerOf is the index of the node etcd names as session id's owner
// (read as cluster's keys lay it out: /replhost/sessions/<id> = node).
func ownerOf(tb testing.TB, etcd []string, id string) int {
	tb.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: etcd, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		tb.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/replhost/sessions/"+id)
	if err != nil {
		tb.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return -1
	}
	var n int
	if _, err := fmt.Sscanf(string(resp.Kvs[0].Value), "n%d", &n); err != nil {
		tb.Fatalf("owner %q: %v", resp.Kvs[0].Value, err)
	}
	return n - 1
}

// The cluster settings come from the config file under their flag names,
// and the command line wins over it.
func TestClusterSettingsFromConfigFile(t *testing.T) {
	path := writeConfig(t, "cluster-etcd = \"http://a:2379,http://b:2379\"\nnode = \"n7\"\nadvertise = \"n7.example:2222\"\ncluster-ttl = \"3s\"\n")
	var out, errs bytes.Buffer
	c, code, ok := parseServe([]string{"--config", path, "--node", "n8"}, &out, &errs)
	if !ok {
		t.Fatalf("parse: %d %s", code, errs.String())
	}
	got := fmt.Sprintf("%q %s %s %s", c.cluster.endpoints(), c.cluster.node, c.cluster.advertise, c.cluster.ttl)
	if want := `["http://a:2379" "http://b:2379"] n8 n7.example:2222 3s`; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

// replhost user rm through one node ends the user's sessions on the
// others: the node tells them through etcd.
func TestClusterUserRmEndsSessionsOnEveryNode(t *testing.T) {
	needTool(t, "ssh")
	etcd := etcdtest.Start(t)
	root := filepath.Join(t.TempDir(), "root")
	n1 := startClusterNode(t, root, etcd.Endpoints(), "n1") // alone: it gets the session
	c := newClusterSSH(t, root, n1)
	out, errs, code := c.run(t, n1, "", "new")
	id := strings.TrimSpace(out)
	if code != 0 || len(id) != 36 {
		t.Fatalf("new through n1: %q %q %d", out, errs, code)
	}
	startClusterNode(t, root, etcd.Endpoints(), "n2")
	var rmOut, rmErr bytes.Buffer
	if code := run([]string{"user", "rm", "--root", root, "--node", "n2", "tester"}, &rmOut, &rmErr); code != 0 {
		t.Fatalf("user rm through n2: %d %q %q", code, rmOut.String(), rmErr.String())
	}
	gone := waitUntil(func() bool {
		var list, listErr bytes.Buffer
		code := run([]string{"sessions", "--all", "--root", root, "--node", "n1"}, &list, &listErr)
		return code == 0 && !strings.Contains(list.String(), id)
	})
	if !gone {
		t.Errorf("session %s still on n1 after user rm through n2", id)
	}
	if _, err := os.Stat(filepath.Join(root, id)); !os.IsNotExist(err) {
		t.Errorf("the session's folder after user rm: %v; want it removed", err)
	}
	// The claim is released after the folder is gone (no other node may
	// claim a session being removed), so it is waited for, not read once.
	if !waitUntil(func() bool { return ownerOf(t, etcd.Endpoints(), id) == -1 }) {
		t.Errorf("the session still has an owner in etcd after user rm")
	}
}

// On a cluster root with no node answering here, user rm removes the user
// but never the sessions from the disk behind nodes that may run
// elsewhere: it says so and exits 1.
func TestClusterUserRmWithNoNodeLeavesSessions(t *testing.T) {
	needTool(t, "ssh")
	etcd := etcdtest.Start(t)
	root := filepath.Join(t.TempDir(), "root")
	n1 := startClusterNode(t, root, etcd.Endpoints(), "n1")
	c := newClusterSSH(t, root, n1)
	out, errs, code := c.run(t, n1, "", "new")
	id := strings.TrimSpace(out)
	if code != 0 || len(id) != 36 {
		t.Fatalf("new through n1: %q %q %d", out, errs, code)
	}
	n1.Kill()
	var rmOut, rmErr bytes.Buffer
	code = run([]string{"user", "rm", "--root", root, "tester"}, &rmOut, &rmErr)
	if code != 1 || !strings.Contains(rmErr.String(), "no node of the cluster answers") {
		t.Errorf("user rm with no node: %d %q %q; want 1 and why", code, rmOut.String(), rmErr.String())
	}
	if _, err := os.Stat(filepath.Join(root, id)); err != nil {
		t.Errorf("the session's folder after user rm with no node: %v; want it kept", err)
	}
	if _, err := os.Stat(filepath.Join(root, "users", "tester")); !os.IsNotExist(err) {
		t.Errorf("the user after user rm: %v; want it removed", err)
	}
}
