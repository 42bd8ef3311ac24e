package sftpd

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// OpenSSH's sftp and scp learn the server's limits and upload (and sftp
// downloads) in 255 KiB chunks, not 32 KiB ones; the bytes arrive whole.
func TestOpenSSHUsesTheServersLimits(t *testing.T) {
	const using = "server upload/download buffer sizes 261120 / 261120; using 261120 / 261120"
	data := make([]byte, 3<<20+77)
	rand.NewChaCha8([32]byte{3}).Read(data)
	local := t.TempDir()
	src := filepath.Join(local, "big.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"sftp", "scp"} {
		t.Run(tool, func(t *testing.T) {
			root, env := openssh(t, tool)
			var cmd *exec.Cmd
			if tool == "sftp" {
				cmd = exec.Command("sftp", "-vvv", "-b", "-", "-D", os.Args[0])
				cmd.Stdin = strings.NewReader("put " + src + " /a1/files/big.bin\nget /a1/files/big.bin " + filepath.Join(local, "back.bin") + "\n")
			} else {
				cmd = exec.Command("scp", "-vvv", "-s", "-S", os.Args[0], src, "alice@host:/a1/files/big.bin")
			}
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tool, err, out)
			}
			if !strings.Contains(string(out), using) {
				t.Errorf("%s -vvv did not say %q:\n%s", tool, using, out)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "a1/files/big.bin")); !bytes.Equal(got, data) {
				t.Errorf("uploaded: got %d bytes; want the %d sent", len(got), len(data))
			}
			if tool == "sftp" {
				if got, _ := os.ReadFile(filepath.Join(local, "back.bin")); !bytes.Equal(got, data) {
					t.Errorf("downloaded: got %d bytes; want the %d uploaded", len(got), len(data))
				}
			}
		})
	}
}

// rawClient speaks the sftp protocol to Serve over pipes, packet by packet.
type rawClient struct {
	t    *testing.T
	w    io.WriteCloser
	r    io.Reader
	done chan error
}

func newRawClient(t *testing.T) *rawClient {
	s, _ := newSessions(t, "alice", "a1")
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	c := &rawClient{t: t, w: c2sW, r: s2cR, done: make(chan error, 1)}
	conn := struct {
		io.Reader
		io.WriteCloser
	}{c2sR, s2cW}
	go func() { c.done <- Serve(conn, s, "alice") }()
	t.Cleanup(func() {
		c2sW.Close()
		<-c.done
	})
	return c
}

// send writes one packet: its type, then body.
func (c *rawClient) send(typ byte, body ...[]byte) {
	c.t.Helper()
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = append(b, typ)
	for _, p := range body {
		b = append(b, p...)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	if _, err := c.w.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one packet: its type and body.
func (c *rawClient) recv() (byte, []byte) {
	c.t.Helper()
	var n [4]byte
	if _, err := io.ReadFull(c.r, n[:]); err != nil {
		c.t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.t.Fatal(err)
	}
	return b[0], b[1:]
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func str(s string) []byte { return append(u32(uint32(len(s))), s...) }

// The server offers limits@openssh.com beside pkg/sftp's own extensions,
// answers it with the limits it keeps, and every other request, extended
// or not, still gets pkg/sftp's answer with its own id.
func TestLimitsExtension(t *testing.T) {
	c := newRawClient(t)
	c.send(1, u32(3)) // init, version 3
	typ, body := c.recv()
	if typ != fxpVersion || binary.BigEndian.Uint32(body) != 3 {
		t.Fatalf("got packet %d %x; want version 3", typ, body)
	}
	exts := map[string]string{}
	for rest := body[4:]; len(rest) >= 8; {
		n := binary.BigEndian.Uint32(rest)
		name := string(rest[4 : 4+n])
		rest = rest[4+n:]
		m := binary.BigEndian.Uint32(rest)
		exts[name], rest = string(rest[4:4+m]), rest[4+m:]
	}
	if exts[limitsExt] != "1" || exts["posix-rename@openssh.com"] != "1" {
		t.Errorf("got extensions %v; want limits@openssh.com 1 beside pkg/sftp's", exts)
	}

	c.send(fxpExtended, u32(7), str(limitsExt))
	typ, body = c.recv()
	want := []uint64{256 << 10, 255 << 10, 255 << 10, uint64(DefaultLimits.MaxHandles)}
	if typ != fxpExtendedReply || len(body) != 4+8*len(want) || binary.BigEndian.Uint32(body) != 7 {
		t.Fatalf("got packet %d %x; want the extended reply to 7", typ, body)
	}
	for i, w := range want {
		if got := binary.BigEndian.Uint64(body[4+8*i:]); got != w {
			t.Errorf("limit %d: got %d; want %d", i, got, w)
		}
	}

	// Not limits: pkg/sftp answers (an unsupported extension fails).
	c.send(fxpExtended, u32(8), str("limits@openssh.comX"))
	if typ, body = c.recv(); typ != 101 || binary.BigEndian.Uint32(body) != 8 {
		t.Errorf("got packet %d %x; want a status for 8", typ, body)
	}
	c.send(16, u32(9), str("/")) // realpath
	if typ, body = c.recv(); typ != 104 || binary.BigEndian.Uint32(body) != 9 {
		t.Errorf("got packet %d %x; want a name for 9", typ, body)
	}
}

// A reply of the channel's own never lands inside a packet of the request
// server's, which writes its header and its data apart.
func TestChannelReplyBetweenPackets(t *testing.T) {
	rc := &recordConn{Reader: strings.NewReader("")}
	c := newChannel(rc, 64)
	pkt := func(typ byte, body string) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(1+len(body)))
		return append(append(b, typ), body...)
	}
	a, r, b := pkt(103, "data of a read"), pkt(201, "reply"), pkt(101, "status")
	c.Write(a[:3]) // not even the whole length yet
	if err := c.reply(r); err != nil {
		t.Fatal(err)
	}
	c.Write(a[3:9])
	c.Write(a[9:])
	c.Write(b)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if want := bytes.Join([][]byte{a, r, b}, nil); !bytes.Equal(rc.got.Bytes(), want) {
		t.Errorf("got %q; want %q", rc.got.Bytes(), want)
	}
}
