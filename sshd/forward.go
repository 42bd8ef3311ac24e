package sshd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// forwardDialTimeout bounds the connection and handshake to another node.
const forwardDialTimeout = 10 * time.Second

// forward carries sess to the node at addr over an internal SSH connection
// authenticated with the node key, as sess's user: its terminal, locale,
// command or subsystem, stdin, stdout, stderr, window changes and exit
// status, so that the client sees the other node as this one. Buffers are
// io.Copy's and the SSH channel windows: nothing grows with the stream.
func (s *Server) forward(sess ssh.Session, addr, subsystem string) int {
	ctx := sess.Context()
	// A raw channel, not gossh.Session: a subsystem must be proxied like
	// a command, and the exit status read from the channel's requests.
	ch, in, done, err := s.channel(ctx, addr, sess.User())
	if err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	defer done()
	defer ch.Close()
	status := make(chan int, 1)
	go func() {
		code := 255 // the connection ended without a status (sshd's own)
		for req := range in {
			var st struct{ Status uint32 }
			if req.Type == "exit-status" && gossh.Unmarshal(req.Payload, &st) == nil {
				code = int(st.Status)
			}
			if req.WantReply {
				req.Reply(false, nil)
			}
		}
		status <- code
	}()
	if err := s.startRemote(sess, ch, subsystem); err != nil {
		return s.forwardFailed(sess, addr, err)
	}
	s.log.Debug("forwarded", "user", sess.User(), "node", addr, "command", truncate(sess.RawCommand(), 80), "subsystem", subsystem)
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		io.Copy(ch, sess)
		ch.CloseWrite() // the client's EOF, passed on
	}()
	go s.forwardWindow(sess, ch, ended)
	go func() {
		select {
		case <-ctx.Done(): // the client went away
			ch.Close()
		case <-ended:
		}
	}()
	copied := make(chan struct{})
	go func() {
		io.Copy(sess.Stderr(), ch.Stderr())
		close(copied)
	}()
	io.Copy(sess, ch)
	<-copied
	return <-status
}

// startRemote sends the client's environment (and the session
// environment made for it here, forwardenv.go), terminal and command (or
// shell, or subsystem) on ch, as the client sent them here.
func (s *Server) startRemote(sess ssh.Session, ch gossh.Channel, subsystem string) error {
	if err := s.sendNodeEnv(sess, ch); err != nil {
		return err
	}
	for _, kv := range sess.Environ() {
		if name, value, ok := strings.Cut(kv, "="); ok && name != channelEnvKey {
			// Refused ones are refused there too.
			if _, err := ch.SendRequest("env", true, gossh.Marshal(struct{ Name, Value string }{name, value})); err != nil {
				return err
			}
		}
	}
	if pty, _, isPty := sess.Pty(); isPty {
		modes := s.channelOf(sess).modes
		if modes == "" {
			modes = "\x00" // TTY_OP_END alone: none
		}
		req := ptyReq{Term: pty.Term, Cols: uint32(pty.Window.Width), Rows: uint32(pty.Window.Height), Modes: modes}
		if err := sendOK(ch, "pty-req", gossh.Marshal(req)); err != nil {
			return err
		}
	}
	switch {
	case subsystem != "":
		return sendOK(ch, "subsystem", gossh.Marshal(struct{ Name string }{subsystem}))
	case strings.TrimSpace(sess.RawCommand()) != "":
		return sendOK(ch, "exec", gossh.Marshal(struct{ Command string }{sess.RawCommand()}))
	}
	return sendOK(ch, "shell", nil)
}

// ptyReq is the payload of a pty-req (RFC 4254 6.2).
type ptyReq struct {
	Term                 string
	Cols, Rows, Wpx, Hpx uint32
	Modes                string // encoded terminal modes, as the client sent them
}

// ptyModes is the encoded terminal modes of a pty-req payload (already
// checked by validPty: at most maxTermModes bytes).
func ptyModes(payload []byte) string {
	var p ptyReq
	gossh.Unmarshal(payload, &p)
	return p.Modes
}

func sendOK(ch gossh.Channel, name string, payload []byte) error {
	ok, err := ch.SendRequest(name, true, payload)
	if err == nil && !ok {
		err = fmt.Errorf("%s request refused", name)
	}
	return err
}

// forwardWindow passes the client's window changes on until done.
func (s *Server) forwardWindow(sess ssh.Session, ch gossh.Channel, done <-chan struct{}) {
	win := s.channelOf(sess).window
	if win == nil {
		return
	}
	for {
		select {
		case w := <-win:
			ch.SendRequest("window-change", false, gossh.Marshal(struct{ Cols, Rows, Wpx, Hpx uint32 }{uint32(w.Width), uint32(w.Height), 0, 0}))
		case <-done:
			return
		}
	}
}

func (s *Server) forwardFailed(sess ssh.Session, addr string, err error) int {
	s.log.Warn("forward to node failed", "user", sess.User(), "node", addr, "err", err)
	fmt.Fprintf(sess.Stderr(), "error: the node serving this session (%s) cannot be reached; try again\n", addr)
	return 255
}
