package sshd_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/replhost/replhost/cluster"
	"github.com/replhost/replhost/internal/etcdtest"
	gossh "golang.org/x/crypto/ssh"
)

// A PTY login carried to the owner node carries the client's terminal
// modes with it (gliderlabs drops them: the request filter keeps them).
// The owner here is a bare SSH server that joined the cluster and claimed
// the session, so that it can show the pty-req it got.
func TestClusterForwardCarriesTerminalModes(t *testing.T) {
	etcd := etcdtest.Start(t)
	r := newSharedRoot(t, "alice")
	n1 := startNode(t, r, etcd.Endpoints(), "n1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	peer, err := cluster.Join(ctx, cluster.Config{Endpoints: etcd.Endpoints(), Node: "peer", Advertise: l.Addr().String(),
		TTL: 2 * time.Second, Prefix: "/test/"})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	const id = "6b0f3a52-4c1e-4d7a-9a57-0e2b8c1d9f10"
	if _, err := peer.Claim(ctx, id, cluster.ForUser("alice")); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go servePtyRecorder(t, l, r.HostKey, got)

	want := gossh.TerminalModes{gossh.ECHO: 0, gossh.VERASE: 8, gossh.ICRNL: 1, gossh.TTY_OP_ISPEED: 38400}
	c := r.dial(t, n1, "alice")
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.RequestPty("xterm", 24, 80, want); err != nil {
		t.Fatal(err)
	}
	if err := sess.Run("attach " + id); err != nil {
		t.Fatalf("attach through n1: %v", err)
	}
	payload := <-got
	var req struct {
		Term                 string
		Cols, Rows, Wpx, Hpx uint32
		Modes                string
	}
	if err := gossh.Unmarshal(payload, &req); err != nil {
		t.Fatal(err)
	}
	modes, ok := decodeModes(req.Modes)
	if !ok || len(modes) != len(want) {
		t.Fatalf("the owner got modes %q (%v); want %v", req.Modes, modes, want)
	}
	for k, v := range want {
		if modes[k] != v {
			t.Errorf("mode %d: got %d; want %d", k, modes[k], v)
		}
	}
	if req.Term != "xterm" || req.Cols != 80 || req.Rows != 24 {
		t.Errorf("the owner got terminal %q %dx%d; want xterm 80x24", req.Term, req.Cols, req.Rows)
	}
}

// decodeModes parses RFC 4254 8's encoded modes (opcode byte, uint32
// value, ended by TTY_OP_END).
func decodeModes(s string) (map[uint8]uint32, bool) {
	m := map[uint8]uint32{}
	for len(s) > 0 {
		op := s[0]
		if op == 0 {
			return m, len(s) == 1
		}
		if len(s) < 5 {
			return m, false
		}
		m[op] = uint32(s[1])<<24 | uint32(s[2])<<16 | uint32(s[3])<<8 | uint32(s[4])
		s = s[5:]
	}
	return m, false
}

// servePtyRecorder accepts one login on l (any key: it stands for a node),
// sends the payload of the first pty-req to got, and ends each command
// with status 0.
func servePtyRecorder(t *testing.T, l net.Listener, hostKey gossh.Signer, got chan<- []byte) {
	cfg := &gossh.ServerConfig{PublicKeyCallback: func(gossh.ConnMetadata, gossh.PublicKey) (*gossh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(hostKey)
	conn, err := l.Accept()
	if err != nil {
		t.Errorf("accept: %v", err)
		return
	}
	defer conn.Close()
	_, chans, reqs, err := gossh.NewServerConn(conn, cfg)
	if err != nil {
		t.Errorf("handshake: %v", err)
		return
	}
	go gossh.DiscardRequests(reqs)
	sent := false
	for nc := range chans {
		ch, in, err := nc.Accept()
		if err != nil {
			continue
		}
		for req := range in {
			switch req.Type {
			case "pty-req":
				if !sent {
					got <- req.Payload
					sent = true
				}
				req.Reply(true, nil)
			case "shell", "exec":
				req.Reply(true, nil)
				ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{0}))
				ch.Close()
			default:
				req.Reply(req.Type == "env", nil)
			}
		}
	}
}
